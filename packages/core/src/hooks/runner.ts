import { hookResult, type OmniMessage, type StopReason, type ToolCallPayload } from "@penguin/protocol";
import type { AfterCallHooks, AfterHooksResult } from "../environment/hook-ports.js";
import { replaceControlCharacters } from "../text/control-characters.js";
import { PENGUIN_HOOK_ANSWER_SHAPE, readHookAnswer } from "./hook-answer.js";
import type { ActiveHook, HookPhase, HookSet } from "./hook-set.js";
import { type HookProcessResult, runHookProcess } from "./run-hook.js";

// Running a session's hooks around one call. A before-hook decides: exit 0 allows (unless its
// stdout answers deny, see hook-answer.ts), exit 2 denies with its reason, and anything else
// (another exit code, a timeout, a crash, stdout that is malformed JSON or an answer in a shape
// Penguin cannot read) follows its `on_error` ("a failing before-hook denies by default").
// An after-hook sees the call and its output; its output is traced and shown to the model only
// with `show_output`. Every run becomes one `hook_result` event.

/** "exit 2 … = deny with its reason". */
export const HOOK_DENY_EXIT_CODE = 2;

export interface HookRunContext {
  sessionId: string;
  /** The session's workspace. */
  workspaceDir: string;
  /** The agent's current directory. */
  currentDir(): string;
  /** Secrets out of what hooks printed, before it is traced or shown. */
  redact?: (text: string) => string;
}

export interface BeforeHooksVerdict {
  /** The first hook that denied, and its reason; undefined when every hook allowed. */
  deny?: { hook: string; reason: string };
  /** One `hook_result` per hook that ran. */
  events: OmniMessage[];
}

export type { AfterHooksResult };

type ToolCall = OmniMessage<ToolCallPayload>;

export class HookRunner implements AfterCallHooks {
  constructor(
    readonly hooks: HookSet,
    private readonly context: HookRunContext,
  ) {}

  /** Runs the before-hooks that apply, in order, until one denies. */
  async before(call: ToolCall, signal?: AbortSignal): Promise<BeforeHooksVerdict> {
    const verdict: BeforeHooksVerdict = { events: [] };
    for (const hook of this.hooks.matching("before_tool", call.payload.name)) {
      const run = await this.spawn(hook, "before_tool", this.payloadOf(call), signal);
      const decided = beforeDecision(hook, run);
      verdict.events.push(this.event(hook, "before_tool", call, run, decided));
      if (decided.decision === "deny") {
        verdict.deny = {
          hook: hook.label,
          reason: this.redact(decided.reason ?? `denied by hook ${hook.label}`),
        };
        break;
      }
    }
    return verdict;
  }

  /** Runs the after-hooks that apply to a call that ran, with its output. */
  async after(
    call: ToolCall,
    output: string,
    stopReason: StopReason,
    signal?: AbortSignal,
  ): Promise<AfterHooksResult> {
    const result: AfterHooksResult = { events: [], shown: [] };
    for (const hook of this.hooks.matching("after_tool", call.payload.name)) {
      const input = {
        ...this.payloadOf(call),
        event: "after_tool",
        hook_event_name: AFTER_TOOL_FOREIGN_EVENT,
        output,
        stop_reason: stopReason,
      };
      const run = await this.spawn(hook, "after_tool", input, signal);
      const failure = failureReason(hook, run);
      result.events.push(this.event(hook, "after_tool", call, run, failure ? { reason: failure } : {}));
      if (hook.show_output) {
        const text = failure ?? combinedOutput(run).trim();
        if (text !== "") result.shown.push(`[hook ${hook.label}]\n${this.redact(text)}`);
      }
    }
    return result;
  }

  /**
   * What a hook printed, made fit to leave the runner (deny reasons, shown output, traced output):
   * control characters replaced as in a command's output, then secrets redacted.
   */
  private redact(text: string): string {
    const clean = replaceControlCharacters(text);
    return this.context.redact ? this.context.redact(clean) : clean;
  }

  private payloadOf(call: ToolCall): Record<string, unknown> {
    let args: unknown;
    try {
      args = JSON.parse(call.payload.arguments);
    } catch {
      args = call.payload.arguments;
    }
    return {
      event: "before_tool",
      session_id: this.context.sessionId,
      tool_call_id: call.payload.tool_call_id,
      tool_name: call.payload.name,
      arguments: args,
      workspace: this.context.workspaceDir,
      cwd: this.context.currentDir(),
      ...foreignInputFields(args),
    };
  }

  private spawn(
    hook: ActiveHook,
    phase: HookPhase,
    payload: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<HookProcessResult> {
    return runHookProcess({
      command: hook.command,
      cwd: hook.cwd,
      input: `${JSON.stringify(payload)}\n`,
      timeoutMs: hook.timeout_ms,
      maxOutputChars: hook.max_output_chars,
      env: {
        PENGUIN_HOOK: hook.label,
        PENGUIN_HOOK_EVENT: phase,
        PENGUIN_TOOL_NAME: String(payload.tool_name),
        PENGUIN_SESSION_ID: this.context.sessionId,
        PENGUIN_WORKSPACE: this.context.workspaceDir,
      },
      signal,
    });
  }

  private event(
    hook: ActiveHook,
    phase: HookPhase,
    call: ToolCall,
    run: HookProcessResult,
    decided: { decision?: "allow" | "deny"; reason?: string },
  ): OmniMessage {
    return hookResult({
      hook: hook.label,
      phase,
      tool_call_id: call.payload.tool_call_id,
      tool_name: call.payload.name,
      ...(decided.decision ? { decision: decided.decision } : {}),
      outcome: run.outcome,
      ...(run.exitCode !== undefined ? { exit_code: run.exitCode } : {}),
      ...(decided.reason ? { reason: this.redact(decided.reason) } : {}),
      output: this.redact(combinedOutput(run)),
      duration_ms: run.durationMs,
    });
  }
}

/** The event names hooks written for Claude Code's format read from `hook_event_name`. */
const BEFORE_TOOL_FOREIGN_EVENT = "PreToolUse";
const AFTER_TOOL_FOREIGN_EVENT = "PostToolUse";

/**
 * The fields a hook written for another harness reads (`.tool_input.command`,
 * `.hook_event_name`): without them such a hook reads null, never matches, and allows
 * everything. `tool_input` is the arguments; a command tool's `cmd` is also there as `command`.
 */
function foreignInputFields(args: unknown): Record<string, unknown> {
  let toolInput = args;
  if (args !== null && typeof args === "object" && !Array.isArray(args)) {
    const fields = args as Record<string, unknown>;
    if (typeof fields.cmd === "string" && !("command" in fields))
      toolInput = { ...fields, command: fields.cmd };
  }
  return { hook_event_name: BEFORE_TOOL_FOREIGN_EVENT, tool_input: toolInput };
}

/** stdout, then stderr, with a note of what the cap dropped. */
function combinedOutput(run: HookProcessResult): string {
  const parts = [run.stdout, run.stderr].filter((part) => part !== "");
  let text = parts.join(run.stdout.endsWith("\n") || run.stdout === "" ? "" : "\n");
  if (run.droppedChars > 0) text += `\n[hook output truncated: ${run.droppedChars} more characters]`;
  return text;
}

/** Why a run counts as a failure (not exit 0 or 2), or undefined. */
function failureReason(hook: ActiveHook, run: HookProcessResult): string | undefined {
  switch (run.outcome) {
    case "timeout":
      return `hook ${hook.label} timed out after ${hook.timeout_ms} ms`;
    case "error":
      return `hook ${hook.label} could not run: ${run.error ?? "unknown error"}`;
    case "exited":
      if (run.exitCode === 0 || run.exitCode === HOOK_DENY_EXIT_CODE) return undefined;
      return `hook ${hook.label} failed with exit code ${run.exitCode}${firstLine(run.stderr || run.stdout)}`;
  }
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0]?.trim() ?? "";
  return line === "" ? "" : `: ${line}`;
}

function beforeDecision(
  hook: ActiveHook,
  run: HookProcessResult,
): { decision: "allow" | "deny"; reason?: string } {
  const failure = failureReason(hook, run) ?? unreadableAnswer(hook, run);
  if (failure !== undefined) {
    if (hook.on_error === "allow")
      return { decision: "allow", reason: `${failure}; allowed (on_error: allow)` };
    return { decision: "deny", reason: failure };
  }
  const answer = readHookAnswer(run.stdout);
  const verdict = answer.kind === "verdict" ? answer : undefined;
  if (run.exitCode === HOOK_DENY_EXIT_CODE || verdict?.decision === "deny") {
    const said = verdict?.reason ?? (run.stderr.trim() || (verdict ? "" : run.stdout.trim()));
    return { decision: "deny", reason: said === "" ? `denied by hook ${hook.label}` : said };
  }
  return { decision: "allow" };
}

/**
 * Why the stdout of a hook that exited 0 cannot be acted on, or undefined. Exit 2 denies whatever
 * it printed; exit 0 allows only when stdout is plain text or an answer Penguin can read.
 */
function unreadableAnswer(hook: ActiveHook, run: HookProcessResult): string | undefined {
  if (run.exitCode !== 0) return undefined;
  const answer = readHookAnswer(run.stdout);
  if (answer.kind === "malformed") {
    return `hook ${hook.label} printed malformed JSON on stdout (${answer.error}); a before-hook answers ${PENGUIN_HOOK_ANSWER_SHAPE}`;
  }
  if (answer.kind === "foreign") {
    return `hook ${hook.label} answered in a shape Penguin does not read: ${answer.why}; a before-hook answers ${PENGUIN_HOOK_ANSWER_SHAPE}`;
  }
  return undefined;
}
