import { join, resolve } from "node:path";
import {
  type OmniMessage,
  partialToolCallOutput,
  type StopReason,
  type ToolCallOutputPayload,
  type ToolCallPayload,
  type ToolSpec,
  toolCallOutput,
  toolDispatched,
  toolEffect,
} from "@penguin/protocol";
import { modelVisiblePath, TRUNCATED_OUTPUT_DIR } from "@penguin/state";
import type { Approver } from "../approval/approver.js";
import type { ProcessManager } from "../processes/process-manager.js";
import { writeArchive } from "./archive.js";
import { CallOutput } from "./call-output.js";
import { type AgentPlace, CurrentDirectory, type RoundCall } from "./current-directory.js";
import type { EnvironmentOptions } from "./environment-options.js";
import { FileReadRegistry } from "./file-reads.js";
import type { AfterHooksResult } from "./hook-ports.js";
import { ABORT_GRACE_MS, DEFAULT_MAX_OUTPUT_LENGTH, DEFAULT_TOOL_TIMEOUT_MS } from "./limits.js";
import {
  archiveFailedNote,
  archiveFailedWarning,
  archiveSavedNote,
  DENIED_BY_POLICY_TEXT,
  DENIED_BY_USER_TEXT,
  INTERRUPTED_MARKER,
  NO_OUTPUT_MARKER,
  TOOL_ERROR_PREFIX,
  timeoutMarker,
  truncationMarker,
} from "./markers.js";
import { KeyedLock, type Release } from "./path-lock.js";
import { SecretRedactor } from "./redact.js";
import { stopReasonOf } from "./stop-reason.js";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "./types.js";
import { ArgumentsValidator } from "./validate-arguments.js";

export type { EnvironmentOptions } from "./environment-options.js";

export interface ExecuteToolOptions {
  /** The user's interrupt. */
  signal?: AbortSignal;
  /** Forwarded to tools that start child sessions. */
  approve?: Approver;
  /** The calls of the model round this call belongs to, once the reply has ended. */
  round?: () => Promise<readonly RoundCall[]>;
  /**
   * Records a journal event durably (the engine writes it to the trace at once): the call's
   * `tool_dispatched` before the tool starts, and the tool's own `tool_effect`.
   */
  journal?: (message: OmniMessage) => void;
}

interface ToolEntry {
  tool: BuiltinTool;
  validator: ArgumentsValidator;
}

/** How a tool's run ended, before the close-out turns it into markers and a stop reason. */
interface RunOutcome {
  interrupted: boolean;
  timedOut: boolean;
  threw: { error: unknown } | undefined;
  result: ToolResult | undefined;
}

/** A tool's generator, and one result of its `next()`. */
type ToolIterator = ReturnType<BuiltinTool["execute"]>;
type ToolNext = Awaited<ReturnType<ToolIterator["next"]>>;

type Step = { ok: true; result: ToolNext } | { ok: false; error: unknown };

function settle(promise: Promise<ToolNext>): Promise<Step> {
  return promise.then(
    (result) => ({ ok: true, result }),
    (error: unknown) => ({ ok: false, error }),
  );
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

const defaultWarn = (line: string) => {
  process.stderr.write(`${line}\n`);
};

/**
 * Runs tool calls and closes every one of them: framing, timeout, interrupt, truncation, the
 * recovery file, redaction and the stop reason. "Tools and the Environment never throw into the
 * engine": every call yields start, deltas, stop and exactly one complete `tool_call_output`.
 */
export class Environment {
  private readonly tools = new Map<string, ToolEntry>();
  private readonly locks = new KeyedLock();
  private readonly redactor: SecretRedactor;
  private readonly warn: (line: string) => void;
  private readonly fileReads: FileReadRegistry | undefined;
  private readonly place: AgentPlace;

  constructor(private readonly options: EnvironmentOptions) {
    this.place = {
      directory: options.directory ?? new CurrentDirectory(options.workspaceDir),
      skills: options.skills,
      agents: options.agents,
      handlers: options.handlers,
      hooks: options.hooks?.hooks,
    };
    this.addTools(options.tools);
    this.redactor = new SecretRedactor(options.secrets ?? []);
    this.warn = options.warn ?? defaultWarn;
    this.fileReads = options.writeGuard ? new FileReadRegistry() : undefined;
  }

  /**
   * A new user message starts a task: the write guard forgets what was read before ("a read …
   * earlier in the same task (since the last user message)").
   */
  startTask(): void {
    this.fileReads?.clear();
    this.options.checkpoints?.taskStarted(this.options.sessionId);
  }

  /** Paths a revert restored: the write guard forgets what it knew of them. */
  forgetReads(paths: readonly string[]): void {
    for (const path of paths) this.fileReads?.forget(path);
  }

  /** Steering delivered into the conversation counts as a user message for the write guard too. */
  userMessageDelivered(): void {
    this.fileReads?.clear();
  }

  /**
   * Adds tools after construction (an MCP server's tools are known once it has connected), after
   * the ones already there. The first tool of a name wins; a duplicate cannot shadow it.
   */
  addTools(tools: readonly BuiltinTool[]): void {
    const allowed = this.options.allowedTools;
    for (const tool of tools) {
      if (this.tools.has(tool.name)) continue;
      if (allowed && !allowed.includes(tool.name)) continue;
      this.tools.set(tool.name, {
        tool,
        validator: new ArgumentsValidator(tool.name, tool.definition.parameters),
      });
    }
  }

  /** The agent's current directory: relative paths and commands start here. */
  get currentDir(): string {
    return this.place.directory.path;
  }

  /** The command sessions this Environment's tools start (front ends list and kill them). */
  get processes(): ProcessManager {
    return this.options.processes;
  }

  /** What the model is offered. */
  toolSpecs(): ToolSpec[] {
    return [...this.tools.values()].map(({ tool }) => ({
      name: tool.name,
      description: tool.definition.description,
      parameters: structuredClone(tool.definition.parameters) as Record<string, unknown>,
      permission: tool.definition.permission,
    }));
  }

  /** "A deny produces a synthetic aborted tool_call_output (Tool call denied by user.)". */
  deniedOutput(
    call: OmniMessage<ToolCallPayload>,
    reason: "user" | "policy" = "user",
  ): OmniMessage<ToolCallOutputPayload> {
    const text = reason === "user" ? DENIED_BY_USER_TEXT : DENIED_BY_POLICY_TEXT;
    return toolCallOutput(call.payload.tool_call_id, text, "aborted");
  }

  /** Ends every command session of this session. */
  async dispose(): Promise<void> {
    await this.options.processes.disposeAll();
  }

  /**
   * Runs one call: `partial_tool_call_output` start, deltas, stop, then the complete
   * `tool_call_output`, plus any origin-tagged messages of a child session. Never throws.
   */
  async *executeTool(
    call: OmniMessage<ToolCallPayload>,
    opts: ExecuteToolOptions = {},
  ): AsyncGenerator<OmniMessage, void, undefined> {
    const id = call.payload.tool_call_id;
    yield partialToolCallOutput("start", id);
    const entry = this.tools.get(call.payload.name);
    const limit = entry?.tool.definition.maxOutputLength ?? DEFAULT_MAX_OUTPUT_LENGTH;
    const out = new CallOutput(limit, this.redactor.stream(), true);
    const images: string[] = [];
    let stopReason: StopReason = "failed";
    let ran = false;
    try {
      if (!entry) {
        yield* this.deltas(id, out.appendBlock(this.unknownToolMessage(call.payload.name)));
      } else {
        const check = await entry.validator.check(call.payload.arguments);
        if (!check.ok) {
          yield* this.deltas(id, out.appendBlock(this.redactor.redact(check.message)));
        } else {
          ran = true;
          stopReason = yield* this.run(entry.tool, check.args, id, out, images, opts);
        }
      }
    } catch (error) {
      // Only a bug in the Environment itself lands here; the call still closes.
      stopReason = "failed";
      yield* this.deltas(
        id,
        out.appendBlock(this.redactor.redact(`${TOOL_ERROR_PREFIX} internal error: ${errorMessage(error)}`)),
      );
    }
    const afterEvents: OmniMessage[] = [];
    if (ran && this.options.hooks) {
      // "after it (see the result)": the complete output, before the call is closed, so that a
      // hook with show_output adds its block inside the same output.
      // The runner reports a failed hook as a result; should it throw all the same (a bug), the
      // model sees that the after-hooks could not run, and the call still closes.
      let after: AfterHooksResult;
      try {
        after = await this.options.hooks.after(call, out.output, stopReason, opts.signal);
      } catch (error) {
        after = { events: [], shown: [`[after-hooks] could not run: ${errorMessage(error)}`] };
      }
      afterEvents.push(...after.events);
      for (const block of after.shown) yield* this.deltas(id, out.appendBlock(this.redactor.redact(block)));
    }
    if (images.length > 0) yield partialToolCallOutput("delta", id, "", images);
    yield partialToolCallOutput("stop", id);
    yield toolCallOutput(id, out.output, stopReason, images);
    yield* afterEvents;
  }

  private *deltas(id: string, text: string): Generator<OmniMessage> {
    if (text.length > 0) yield partialToolCallOutput("delta", id, text);
  }

  private unknownToolMessage(name: string): string {
    const available = [...this.tools.keys()];
    return `Unknown tool "${name}". Available tools: ${available.length > 0 ? available.join(", ") : "none"}.`;
  }

  /** Runs the tool under its timeout and the caller's signal, then appends the close-out markers. */
  private async *run(
    tool: BuiltinTool,
    args: Record<string, unknown>,
    id: string,
    out: CallOutput,
    images: string[],
    opts: ExecuteToolOptions,
  ): AsyncGenerator<OmniMessage, StopReason, undefined> {
    const definition = tool.definition;
    const timeoutMs = definition.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    const limit = definition.maxOutputLength ?? DEFAULT_MAX_OUTPUT_LENGTH;
    const outcome: RunOutcome = { interrupted: false, timedOut: false, threw: undefined, result: undefined };

    const controller = new AbortController();
    let graceTimer: NodeJS.Timeout | undefined;
    let timeoutTimer: NodeJS.Timeout | undefined;
    let onAborted!: () => void;
    const aborted = new Promise<"aborted">((resolve) => {
      onAborted = () => resolve("aborted");
    });
    // After an abort the tool has a grace period to stop on its own; when it is over, whatever
    // `next()` is pending is abandoned. One waiter at a time (no Promise.race per step, which
    // would pile a reaction onto a long-lived promise for every delta of a chatty tool).
    let graceExpired = false;
    let wakeWaiter: ((value: "grace") => void) | undefined;
    const onGraceOver = () => {
      graceExpired = true;
      wakeWaiter?.("grace");
    };
    const nextStep = (iterator: ToolIterator): Promise<Step | "grace"> => {
      if (graceExpired) return Promise.resolve("grace");
      return new Promise((resolve) => {
        wakeWaiter = resolve;
        void settle(iterator.next()).then(resolve);
      });
    };
    const abort = (why: "user" | "timeout") => {
      if (why === "user") outcome.interrupted = true;
      else outcome.timedOut = true;
      if (controller.signal.aborted) return;
      // The web platform's names, so tools can tell the two apart (as with AbortSignal.timeout).
      controller.abort(
        why === "user"
          ? new DOMException("interrupted by user", "AbortError")
          : new DOMException(`timed out after ${timeoutMs} ms`, "TimeoutError"),
      );
      onAborted();
      graceTimer = setTimeout(onGraceOver, this.options.abortGraceMs ?? ABORT_GRACE_MS);
    };
    const onCallerAbort = () => abort("user");
    if (opts.signal?.aborted) abort("user");
    else opts.signal?.addEventListener("abort", onCallerAbort, { once: true });

    let release: Release | undefined;
    let iterator: ToolIterator | undefined;
    let finished = false;
    try {
      const cwd = this.place.directory.path;
      const keys = tool.lockKeys?.(args, cwd) ?? [];
      if (keys.length > 0 && !controller.signal.aborted) {
        // Every queue is joined here, synchronously, before this call's first await (path-lock.ts
        // explains why that keeps multi-key calls from deadlocking).
        const places = this.locks.acquireAll(keys);
        const first = await Promise.race([places.held, aborted]);
        if (first === "aborted") {
          // Keep our places and hand each one on as soon as it is our turn there.
          places.abandon();
        } else {
          release = first;
        }
      }
      if (!controller.signal.aborted) {
        if (timeoutMs > 0) timeoutTimer = setTimeout(() => abort("timeout"), timeoutMs);
        const ctx: ToolExecutionContext = {
          workspaceDir: cwd,
          workspaceRoot: this.options.workspaceDir,
          place: this.place,
          roundCalls: opts.round,
          toolCallId: id,
          signal: controller.signal,
          approve: opts.approve,
          sessionId: this.options.sessionId,
          scratchpadDir: this.options.scratchpadDir,
          processes: this.options.processes,
          modelHasVision: this.options.modelHasVision ?? false,
          describeImage: this.options.describeImage,
          fileReads: this.fileReads,
          files: this.options.files,
          offersTool: (name) => this.tools.has(name),
          confinement: this.options.confinement,
          offline: this.options.offline,
        };
        const journal = opts.journal;
        if (journal) {
          // The journal's "dispatched" step: in the trace before the tool can act. Where the trace
          // is also kept elsewhere, the tool waits until it is stored there too; an interrupt or
          // the call's timeout ends that wait, and the tool then does not start.
          const dispatched = Promise.resolve(
            journal(
              toolDispatched({ tool_call_id: id, name: tool.name, read_only: definition.permission === "r" }),
            ),
          );
          dispatched.catch(() => undefined);
          await Promise.race([dispatched, aborted]);
          // An effect is recorded as the tool goes; a copy that fails to store it shows at the next
          // call's dispatch, which waits for it.
          ctx.recordEffect = (effect) => {
            void Promise.resolve(journal(toolEffect({ tool_call_id: id, ...effect }))).catch(() => undefined);
          };
        }
        const book = this.options.checkpoints;
        if (book) {
          const call = { sessionId: this.options.sessionId, toolCallId: id };
          ctx.checkpoint = (paths, options) => book.before(paths, call, options);
          ctx.beforeCommand = () => book.beforeCommand(this.options.workspaceDir);
        }
        if (!controller.signal.aborted) {
          iterator = tool.execute(args, ctx);
          for (;;) {
            const step = await nextStep(iterator);
            wakeWaiter = undefined;
            if (step === "grace") break;
            if (!step.ok) {
              outcome.threw = { error: step.error };
              finished = true;
              break;
            }
            if (step.result.done) {
              outcome.result = step.result.value ?? undefined;
              finished = true;
              break;
            }
            const message = step.result.value;
            const text = this.absorb(message, images);
            if (text === undefined) {
              yield message;
            } else {
              yield* this.deltas(id, out.push(text));
            }
          }
        }
      }
    } catch (error) {
      outcome.threw = { error };
    } finally {
      clearTimeout(timeoutTimer);
      clearTimeout(graceTimer);
      opts.signal?.removeEventListener("abort", onCallerAbort);
      // A tool that ignored its signal past the grace period is left to finish in the background.
      if (iterator && !finished) void iterator.return(undefined).catch(() => {});
      release?.();
    }
    await this.options.checkpoints?.after(id);
    yield* this.closeOut(tool, id, out, images, outcome, limit, timeoutMs);
    return stopReasonOf({
      interrupted: outcome.interrupted,
      timedOut: outcome.timedOut,
      threw: outcome.threw !== undefined,
      reported: outcome.result?.stopReason,
    });
  }

  /**
   * A tool's message: its text deltas are returned as text, its own framing and complete
   * outputs are dropped (only the Environment closes a call: returned as ""), and anything
   * else (a child session's origin-tagged messages, events) is passed through (`undefined`).
   */
  private absorb(message: OmniMessage, images: string[]): string | undefined {
    if (message.type !== "model_msg" || message.origin !== undefined) return undefined;
    const payload = message.payload;
    if (payload.type === "partial_tool_call_output") {
      if (payload.images) images.push(...payload.images);
      return payload.event_type === "delta" && typeof payload.output === "string" ? payload.output : "";
    }
    if (payload.type === "tool_call_output") return "";
    return undefined;
  }

  /** The markers after the tool's text, in a fixed order, all outside the truncation window. */
  private async *closeOut(
    tool: BuiltinTool,
    id: string,
    out: CallOutput,
    images: string[],
    outcome: RunOutcome,
    limit: number,
    timeoutMs: number,
  ): AsyncGenerator<OmniMessage, void, undefined> {
    yield* this.deltas(id, out.endBody());
    if (out.bodyEmpty && !outcome.threw) yield* this.deltas(id, out.appendBlock(NO_OUTPUT_MARKER));
    if (out.truncated) yield* this.deltas(id, out.appendBlock(truncationMarker(limit)));
    if (outcome.interrupted) yield* this.deltas(id, out.appendBlock(INTERRUPTED_MARKER));
    else if (outcome.timedOut) yield* this.deltas(id, out.appendBlock(timeoutMarker(timeoutMs)));
    if (outcome.threw) {
      const text = `${TOOL_ERROR_PREFIX} ${errorMessage(outcome.threw.error)}`;
      yield* this.deltas(id, out.appendBlock(this.redactor.redact(text)));
    }
    const note = outcome.result?.note;
    if (typeof note === "string") yield* this.deltas(id, out.appendBlock(this.redactor.redact(note)));
    if (Array.isArray(outcome.result?.images)) images.push(...outcome.result.images);
    const capture = out.archiveCapture;
    if (capture) {
      const dir = join(resolve(this.options.scratchpadDir), TRUNCATED_OUTPUT_DIR);
      const saved = await writeArchive(dir, id, capture);
      if (saved.ok) {
        const path = modelVisiblePath(saved.path);
        yield* this.deltas(id, out.appendBlock(archiveSavedNote(path, saved.bytes, saved.windowed)));
      } else {
        yield* this.deltas(id, out.appendBlock(archiveFailedNote(saved.code)));
        this.warn(archiveFailedWarning(tool.name, saved.code));
      }
    }
    out.releaseCapture();
  }
}
