import type { OmniMessage } from "@penguin/protocol";
import { defaultToolLimits, type ToolDefinitionConfig, type ToolLimits } from "@penguin/state";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../../environment/types.js";
import { answer, fail } from "../../call-text.js";
import { positiveIntegerArgument } from "../../files/file-tool-support.js";
import { cutLine, findJob, stateText } from "./job-support.js";

type ReadLimits = ToolLimits["read_job_output"];

/**
 * `read_job_output`: "Reads a bounded window of a job's output without waiting. A non-zero dropped
 * count means the buffer lost its oldest lines." Lines are numbered from the job's start, so a
 * window can be asked for again (or paged with offset) while the job keeps printing; reading
 * moves no read position, so wait_job and input_command still return this output as new.
 */
export function createReadJobOutputTool(
  definition: ToolDefinitionConfig,
  limits: ReadLimits = defaultToolLimits().read_job_output,
): BuiltinTool {
  async function* execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    const found = findJob(ctx, args);
    if (!found.ok) return yield* found.failure;
    const hasOffset = args.offset !== undefined && args.offset !== null;
    const offset = positiveIntegerArgument(args, "offset", 1);
    if (!offset.ok) return yield* fail(ctx, offset.error);
    const limit = positiveIntegerArgument(args, "limit", limits.defaultLines);
    if (!limit.ok) return yield* fail(ctx, limit.error);

    const job = found.job;
    const lines = Math.min(limit.value, limits.maxLines);
    const window = job.lineWindow({ offset: hasOffset ? offset.value : undefined, limit: lines });
    const last = window.firstLine + window.lines.length - 1;
    const notes: string[] = [`job ${job.id} ${stateText(job)}`];
    if (window.lines.length > 0) notes.push(`lines ${window.firstLine}-${last} of ${window.totalLines}`);
    else notes.push(`${window.totalLines} lines so far`);
    notes.push(`dropped: ${window.droppedLines}`);
    if (hasOffset && offset.value < window.firstLine && window.lines.length > 0) {
      notes.push(`line ${offset.value} is no longer held; the window starts at the oldest line kept`);
    }
    if (limit.value > limits.maxLines) notes.push(`limit capped at ${limits.maxLines} lines`);
    if (last < window.totalLines && window.lines.length > 0) notes.push(`next: offset ${last + 1}`);

    let body: string;
    if (window.lines.length > 0)
      body = window.lines.map((line) => cutLine(line, limits.maxLineChars)).join("\n");
    else if (window.totalLines === 0) body = job.exit ? "(the job printed nothing)" : "(no output yet)";
    else body = `(no lines from ${offset.value} on)`;
    return yield* answer(ctx, body, { stopReason: "completed", note: `[${notes.join("; ")}]` });
  }

  return { name: definition.name, definition, execute };
}
