import type { OmniMessage } from "@penguin/protocol";
import {
  DEFAULT_SEARCH_EXECUTIONS_ROWS,
  MAX_SEARCH_EXECUTIONS_ROWS,
  type ToolDefinitionConfig,
} from "@penguin/state";
import {
  EXECUTION_STATES,
  type Execution,
  type ExecutionFilter,
  type ExecutionState,
  pageItems,
} from "@penguin/trace";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../environment/types.js";
import { answer, fail } from "../call-text.js";
import { optionalStringArgument, positiveIntegerArgument } from "../files/file-tool-support.js";
import { type ExecutionSource, findExecutions } from "./source.js";

/** Characters of a prompt a row shows. */
const PROMPT_CHARS = 100;

const oneLine = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
};

/** One row of the list: id, state, who, when, what, and what it did. */
function executionRow(execution: Execution): string {
  const who = [execution.agent, execution.parent && `launched by ${execution.parent}`]
    .filter(Boolean)
    .join(", ");
  const ended = execution.endedAt
    ? `, ended ${execution.endedAt}`
    : `, last activity ${execution.lastActivityAt}`;
  const uncertain = execution.uncertainCalls > 0 ? `, ${execution.uncertainCalls} uncertain` : "";
  const prompt = execution.prompt !== undefined ? ` "${oneLine(execution.prompt, PROMPT_CHARS)}"` : "";
  return `${execution.id} ${execution.state}${execution.resumable ? " (resumable)" : ""}${who ? ` [${who}]` : ""}: started ${execution.startedAt}${ended}; ${execution.requests} requests, ${execution.toolCalls} tool calls${uncertain};${prompt}`;
}

type FilterRead = { ok: true; filter: ExecutionFilter } | { ok: false; error: string };

function readFilter(args: Record<string, unknown>): FilterRead {
  const filter: ExecutionFilter = {};
  const fields: [string, "text" | "agent" | "agentRunId" | "id"][] = [
    ["text", "text"],
    ["agent", "agent"],
    ["agent_run_id", "agentRunId"],
    ["execution_id", "id"],
  ];
  for (const [name, key] of fields) {
    const read = optionalStringArgument(args, name);
    if (!read.ok) return read;
    if (read.value !== undefined) filter[key] = read.value;
  }
  const state = optionalStringArgument(args, "state");
  if (!state.ok) return state;
  if (state.value !== undefined) {
    if (!(EXECUTION_STATES as readonly string[]).includes(state.value)) {
      return {
        ok: false,
        error: `state must be one of ${EXECUTION_STATES.join(", ")}; got "${state.value}".`,
      };
    }
    filter.state = state.value as ExecutionState;
  }
  for (const name of ["since", "until"] as const) {
    const read = optionalStringArgument(args, name);
    if (!read.ok) return read;
    if (read.value === undefined) continue;
    const time = Date.parse(read.value);
    if (Number.isNaN(time))
      return { ok: false, error: `${name} must be an ISO 8601 time; got "${read.value}".` };
    filter[name] = new Date(time).toISOString();
  }
  return { ok: true, filter };
}

/**
 * `search_executions {text?, agent?, agent_run_id?, execution_id?, state?, since?, until?, limit?,
 * page?}`: the session's executions that match, one row each, a page at a time. Reading resumes
 * nothing.
 */
export function createSearchExecutionsTool(
  definition: ToolDefinitionConfig,
  source: ExecutionSource | undefined,
): BuiltinTool {
  async function* execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    const filter = readFilter(args);
    if (!filter.ok) return yield* fail(ctx, filter.error);
    const limit = positiveIntegerArgument(args, "limit", DEFAULT_SEARCH_EXECUTIONS_ROWS);
    if (!limit.ok) return yield* fail(ctx, limit.error);
    const page = positiveIntegerArgument(args, "page", 1);
    if (!page.ok) return yield* fail(ctx, page.error);
    if (!source)
      return yield* fail(ctx, "this session keeps no trace, so it has no retained work to search.");
    const found = findExecutions(source, filter.filter);
    if (!found.ok) return yield* fail(ctx, found.error);
    if (found.executions.length === 0) return yield* answer(ctx, "No execution of this session matches.");
    const shown = pageItems(found.executions, page.value, Math.min(limit.value, MAX_SEARCH_EXECUTIONS_ROWS));
    const more =
      shown.page < shown.pages
        ? `\n[page ${shown.page} of ${shown.pages}: search again with page=${shown.page + 1} for more]`
        : "";
    const head = `${found.executions.length} executions (page ${shown.page} of ${shown.pages}), oldest first per agent:`;
    const hint =
      "\nread_execution reads one (metadata, context, activities, events, inbox); reading resumes nothing.";
    return yield* answer(ctx, `${head}\n${shown.items.map(executionRow).join("\n")}${more}${hint}`);
  }
  return { name: definition.name, definition, execute };
}
