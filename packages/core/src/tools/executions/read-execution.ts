import type { ToolDefinitionConfig } from "@penguin/state";
import type { ExecutionPart } from "@penguin/trace";
import type { BuiltinTool } from "../../environment/types.js";
import { answer, fail } from "../call-text.js";
import {
  executeWithArguments,
  optionalStringArg,
  positiveIntegerArg,
  stringArg,
} from "../files/file-tool-support.js";
import { type ExecutionRead, type ExecutionSource, readExecutionPart } from "./source.js";

/** A page of a part as text: a header, one line per item, and how to get the next page. */
function formatExecutionPage(read: Extract<ExecutionRead, { ok: true }>): string {
  const { execution, part, page, pages, total } = read;
  const head = `${execution.id} (${execution.state}), ${part}: page ${page} of ${pages}, ${total} items`;
  if (read.items.length === 0) return `${head}\n(nothing recorded)`;
  const lines = read.items.map((item) => `${item.at} ${item.kind}: ${item.text}`);
  const next =
    page < pages
      ? `\n[page ${page} of ${pages}: read_execution execution_id=${execution.id} part=${part} page=${page + 1} for the next]`
      : "";
  return `${head}\n${lines.join("\n")}${next}`;
}

/** `read_execution {execution_id, part?, page?}`: one page of one part of an execution; resumes nothing. */
export function createReadExecutionTool(
  definition: ToolDefinitionConfig,
  source: ExecutionSource | undefined,
): BuiltinTool {
  const execute = executeWithArguments(
    { id: stringArg("execution_id"), part: optionalStringArg("part"), page: positiveIntegerArg("page", 1) },
    async function* ({ id, part, page }, ctx) {
      if (!source)
        return yield* fail(ctx, "this session keeps no trace, so it has no retained work to read.");
      const read = readExecutionPart(source, id, (part ?? "metadata") as ExecutionPart, page);
      if (!read.ok) return yield* fail(ctx, read.error);
      return yield* answer(ctx, formatExecutionPage(read));
    },
  );
  return { name: definition.name, definition, execute };
}
