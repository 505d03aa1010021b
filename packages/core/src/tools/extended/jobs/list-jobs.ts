import type { OmniMessage } from "@penguin/protocol";
import { defaultToolLimits, type ToolDefinitionConfig, type ToolLimits } from "@penguin/state";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../../environment/types.js";
import type { CommandSession } from "../../../processes/session.js";
import { answer, fail } from "../../call-text.js";
import { optionalStringArgument } from "../../files/file-tool-support.js";
import { cutLine, formatDuration, stateText } from "./job-support.js";

type ListLimits = ToolLimits["list_jobs"];

const STATES = ["all", "running", "exited"] as const;
type StateFilter = (typeof STATES)[number];

/**
 * `list_jobs`: "Lists the session's running and finished commands with their purpose, state,
 * timings, and buffered output." Jobs and exec_command sessions are one kind of thing, so both are
 * listed (oldest first), each with the tool that started it. Listing consumes no output.
 */
export function createListJobsTool(
  definition: ToolDefinitionConfig,
  limits: ListLimits = defaultToolLimits().list_jobs,
): BuiltinTool {
  async function* execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    const state = optionalStringArgument(args, "state");
    if (!state.ok) return yield* fail(ctx, state.error);
    const filter = (state.value ?? "all") as StateFilter;
    if (!STATES.includes(filter)) {
      return yield* fail(
        ctx,
        `argument "state" must be one of ${STATES.join(", ")}, got ${JSON.stringify(state.value)}`,
      );
    }
    const now = Date.now();
    const jobs = ctx.processes
      .list()
      .map((info) => ctx.processes.get(info.id))
      .filter((job): job is CommandSession => job !== undefined)
      .filter((job) => filter === "all" || job.status === filter);
    const all = ctx.processes.list().length;
    const cap = ctx.processes.maxSessions;
    const summary = `${jobs.length} job${jobs.length === 1 ? "" : "s"}${filter === "all" ? "" : ` ${filter}`} (${all} of at most ${cap} kept)`;
    if (jobs.length === 0) return yield* answer(ctx, `${summary}.`, { stopReason: "completed" });
    const blocks = jobs.map((job) => describeJob(job, now, limits));
    return yield* answer(ctx, `${summary}:\n\n${blocks.join("\n\n")}`, { stopReason: "completed" });
  }

  return { name: definition.name, definition, execute };
}

function describeJob(job: CommandSession, now: number, limits: ListLimits): string {
  const started = new Date(job.startedAt).toISOString();
  const timing =
    job.endedAt === undefined
      ? `started ${started}, running for ${formatDuration(now - job.startedAt)}`
      : `started ${started}, ran ${formatDuration(job.endedAt - job.startedAt)}, ended ${formatDuration(now - job.endedAt)} ago`;
  const lines = [
    `${job.id} ${stateText(job)} (${job.origin}${job.pid !== undefined ? `, pid ${job.pid}` : ""})`,
    `  purpose: ${job.purpose ? cutLine(job.purpose, limits.maxLineChars) : "(none given)"}`,
    `  command: ${cutLine(job.cmd.replace(/\n/g, "\\n"), limits.maxLineChars)}`,
    `  directory: ${job.cwd}`,
    `  ${timing}`,
  ];
  const window = job.lineWindow({ limit: Math.max(1, limits.tailLines) });
  const buffered = `  output: ${window.totalLines} line${window.totalLines === 1 ? "" : "s"}, ${job.unreadChars} chars not yet returned, dropped: ${window.droppedLines}`;
  lines.push(buffered);
  if (limits.tailLines > 0) {
    for (const line of window.lines) lines.push(`  | ${cutLine(line, limits.maxLineChars)}`);
  }
  return lines.join("\n");
}
