import { type OmniMessage, partialToolCallOutput } from "@penguin/protocol";
import { defaultToolLimits, type ToolDefinitionConfig, type ToolLimits } from "@penguin/state";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../../environment/types.js";
import { type CommandSession, exitNote } from "../../../processes/session.js";
import { fail } from "../../call-text.js";
import { clampYieldTime, optionalString } from "../../command/call-arguments.js";
import { cutLine, findJob, optionalWaitMs } from "./job-support.js";
import { compilePattern, LineMatcher } from "./line-matcher.js";

type WaitLimits = ToolLimits["wait_job"];

/** wait_job may be a plain poll (`timeout_ms: 0`). */
const MIN_WAIT_MS = 0;
/** The matched line is quoted in the note up to this many characters. */
const QUOTED_LINE_CHARS = 200;

type WaitOutcome =
  | "finished"
  | "matched"
  | "window-elapsed"
  | "aborted"
  | "pattern-too-slow"
  | "pattern-crashed";

/**
 * `wait_job`: "Blocks until a job exits or the wait ends, and returns its state, exit code, and new
 * output" — and, beyond that, until a line of the new output matches `pattern` (a server that
 * says it is ready). New output is what no call returned yet: run_command, exec_command,
 * input_command and wait_job share one read position per job and move it on; read_job_output and
 * list_jobs do not. The wait never stops the job, whether it ends by the timeout, the call's own
 * timeout or an interrupt.
 */
export function createWaitJobTool(
  definition: ToolDefinitionConfig,
  limits: WaitLimits = defaultToolLimits().wait_job,
): BuiltinTool {
  async function* execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    const found = findJob(ctx, args);
    if (!found.ok) return yield* found.failure;
    const source = optionalString(args, "pattern");
    if (!source.ok) return yield* fail(ctx, source.error);
    const timeout = optionalWaitMs(args, "timeout_ms");
    if (!timeout.ok) return yield* fail(ctx, timeout.error);
    let matcher: LineMatcher | undefined;
    if (source.value !== undefined && source.value !== "") {
      const compiled = compilePattern(source.value);
      if (!compiled.ok) return yield* fail(ctx, compiled.error);
      matcher = new LineMatcher(compiled.pattern, limits.maxLineChars);
    }
    const windowMs = clampYieldTime({
      requested: timeout.value,
      fallback: limits.defaultTimeoutMs,
      min: MIN_WAIT_MS,
      timeoutMs: definition.timeoutMs,
    });

    const job = found.job;
    job.activeCalls += 1;
    job.touch();
    try {
      const outcome = yield* follow(job, {
        windowMs,
        matcher,
        regexTimeoutMs: limits.regexTimeoutMs,
        toolCallId: ctx.toolCallId,
        signal: ctx.signal,
      });
      const pattern = source.value;
      const state = job.exit ? exitNote(job.exit) : `[job ${job.id} is still running]`;
      if (outcome === "pattern-too-slow") {
        return {
          stopReason: "failed",
          note: `[pattern /${pattern}/ took longer than ${limits.regexTimeoutMs / 1000} s on one line of output (catastrophic backtracking?), so the wait ended: simplify it (avoid nested quantifiers like (a+)+), or wait without a pattern] ${state}`,
        };
      }
      if (outcome === "pattern-crashed") {
        return {
          stopReason: "failed",
          note: `[pattern /${pattern}/ could not be run, so the wait ended: simplify it, or wait without a pattern] ${state}`,
        };
      }
      if (outcome === "matched") {
        const line = JSON.stringify(cutLine(matcher?.match ?? "", QUOTED_LINE_CHARS));
        return { stopReason: "completed", note: `[pattern /${pattern}/ matched the line ${line}] ${state}` };
      }
      if (matcher && pattern !== undefined) {
        const why = job.exit
          ? "before the job exited"
          : outcome === "aborted"
            ? "before the wait was cut short"
            : `within ${windowMs} ms`;
        return { stopReason: "completed", note: `[pattern /${pattern}/ not seen ${why}] ${state}` };
      }
      if (!job.exit && outcome === "window-elapsed") {
        return {
          stopReason: "completed",
          note: `[job ${job.id} is still running after a ${windowMs} ms wait]`,
        };
      }
      return { stopReason: "completed", note: state };
    } finally {
      matcher?.dispose();
      job.activeCalls -= 1;
      job.touch();
    }
  }

  return { name: definition.name, definition, execute };
}

/**
 * Streams the job's unread output until it has finished, a line matched, the window passed or the
 * call was aborted. Consumed output is never held here beyond the matcher's unfinished line.
 */
async function* follow(
  job: CommandSession,
  options: {
    windowMs: number;
    matcher?: LineMatcher;
    regexTimeoutMs: number;
    toolCallId: string;
    signal?: AbortSignal;
  },
): AsyncGenerator<OmniMessage, WaitOutcome> {
  const deadline = Date.now() + options.windowMs;
  for (;;) {
    // Whether the job had finished is read before its output, so nothing it printed is left behind.
    const finished = job.finished;
    const text = job.takeUnread();
    if (text.length > 0) {
      yield partialToolCallOutput("delta", options.toolCallId, text);
      if (options.matcher) {
        // The pattern is tested off this thread; a line it hangs on ends the wait, not the process.
        const fed = await options.matcher.feed(text, {
          budgetMs: options.regexTimeoutMs,
          signal: options.signal,
        });
        if (fed === "matched" || fed === "aborted") return fed;
        if (fed === "too-slow") return "pattern-too-slow";
        if (fed === "crashed") return "pattern-crashed";
      }
    }
    if (finished) return "finished";
    if (options.signal?.aborted) return "aborted";
    const remaining = deadline - Date.now();
    if (remaining <= 0) return "window-elapsed";
    await job.waitForActivity(remaining, options.signal);
  }
}
