import { type OmniMessage, partialToolCallOutput } from "@penguin/protocol";
import {
  DEFAULT_MAX_OUTPUT_LENGTH,
  DEFAULT_TOOL_TIMEOUT_MS,
  READ_FILE_DEFAULT_LIMIT,
  READ_FILE_DEFAULT_OFFSET,
  READ_FILE_OUTPUT_RESERVE_CHARS,
} from "../environment/limits.js";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../environment/types.js";
import { replaceControlCharacters } from "../text/control-characters.js";
import { windowOfLines } from "../tools/files/line-window.js";
import type { McpConnection } from "./connection.js";
import { describeError } from "./error-text.js";
import { MCP_RESOURCE_LIST_MAX, READ_MCP_RESOURCE_TOOL } from "./limits.js";
import { listingLines, listResources, readResource, renderContents } from "./resources.js";

// "Resources: let the model list and read a server's resources (one `read_mcp_resource` tool,
// bounded like `read_file`)". Without a uri it lists; with one it reads a window of lines, numbered
// and continued exactly like read_file's, so a large resource is read page by page.

const DESCRIPTION = [
  "Lists and reads the resources of the connected MCP servers (documents, files, records they expose).",
  "Without uri: lists each server's resources and resource templates (or only those of server).",
  "With uri: reads that resource, as numbered lines like read_file; continue a long one with offset (the first line to show, 1-based) and limit (how many lines).",
  "server is required with uri when more than one server has resources.",
].join("\n");

function continuationNote(first: number, last: number, total: number, cutForSize: boolean): string {
  const why = cutForSize ? "; output size limit reached" : "";
  return `[lines ${first}-${last} of ${total}${why}; continue with offset=${last + 1}]`;
}

/** `read_mcp_resource` over the servers (connected, with the `resources` capability) it is given. */
export function createReadMcpResourceTool(servers: readonly McpConnection[]): BuiltinTool {
  const names = servers.map((server) => server.name);
  const maxOutputLength = DEFAULT_MAX_OUTPUT_LENGTH;
  // A window must fit in the output cap, so the continuation note is never cut away (as read_file).
  const maxChars = Math.max(1, maxOutputLength - READ_FILE_OUTPUT_RESERVE_CHARS);

  async function* fail(ctx: ToolExecutionContext, text: string): AsyncGenerator<OmniMessage, ToolResult> {
    yield partialToolCallOutput("delta", ctx.toolCallId, replaceControlCharacters(text));
    return { stopReason: "failed" };
  }

  function pick(server: string | undefined): McpConnection | string {
    if (server === undefined) {
      if (servers.length === 1) return servers[0];
      return `more than one MCP server has resources (${names.join(", ")}): name one as server`;
    }
    return (
      servers.find((connection) => connection.name === server) ??
      `no connected MCP server named "${server}" has resources; these do: ${names.join(", ")}`
    );
  }

  async function* list(ctx: ToolExecutionContext, only: McpConnection | undefined) {
    const sections: string[] = [];
    for (const connection of only ? [only] : servers) {
      let lines: string[];
      try {
        const listing = await listResources(
          await connection.requestClient(ctx.signal),
          MCP_RESOURCE_LIST_MAX,
          ctx.signal,
        );
        lines = listingLines(listing);
      } catch (error) {
        if (ctx.signal?.aborted) return {};
        lines = [`(cannot list: ${describeError(error)})`];
      }
      sections.push([`Resources of MCP server "${connection.name}":`, ...lines].join("\n"));
    }
    sections.push(`Read one with ${READ_MCP_RESOURCE_TOOL} {server, uri}.`);
    yield partialToolCallOutput("delta", ctx.toolCallId, replaceControlCharacters(sections.join("\n\n")));
    return {};
  }

  async function* execute(args: Record<string, unknown>, ctx: ToolExecutionContext) {
    const server = typeof args.server === "string" ? args.server : undefined;
    const uri = typeof args.uri === "string" ? args.uri : undefined;
    if (uri === undefined) {
      const only = server === undefined ? undefined : pick(server);
      if (typeof only === "string") return yield* fail(ctx, only);
      return yield* list(ctx, only);
    }
    const connection = pick(server);
    if (typeof connection === "string") return yield* fail(ctx, connection);
    const offset = typeof args.offset === "number" ? args.offset : READ_FILE_DEFAULT_OFFSET;
    const limit = typeof args.limit === "number" ? args.limit : READ_FILE_DEFAULT_LIMIT;
    let contents: Awaited<ReturnType<typeof readResource>>;
    try {
      contents = await readResource(await connection.requestClient(ctx.signal), uri, ctx.signal);
    } catch (error) {
      // An interrupt or the timeout: the Environment reports it.
      if (ctx.signal?.aborted) return {};
      return yield* fail(
        ctx,
        `The MCP server "${connection.name}" could not read ${uri}: ${describeError(error)}`,
      );
    }
    const rendered = renderContents(contents, ctx.modelHasVision);
    const lines = rendered.text === "" ? [] : rendered.text.split("\n");
    const images = rendered.images.length > 0 ? { images: rendered.images } : {};
    if (lines.length === 0) return images;
    if (offset > lines.length) {
      return yield* fail(ctx, `offset ${offset} is past the end of ${uri} (${lines.length} lines)`);
    }
    const window = windowOfLines(lines, { offset, limit, maxChars });
    if (window.kind !== "text") return images;
    let text = window.lines.join("\n");
    if (window.more) {
      const last = window.firstLine + window.lines.length - 1;
      text += `\n${continuationNote(window.firstLine, last, lines.length, window.cutForSize)}`;
    }
    yield partialToolCallOutput("delta", ctx.toolCallId, replaceControlCharacters(text));
    return images;
  }

  return {
    name: READ_MCP_RESOURCE_TOOL,
    definition: {
      name: READ_MCP_RESOURCE_TOOL,
      description: DESCRIPTION,
      parameters: {
        type: "object",
        properties: {
          server: {
            type: "string",
            enum: names,
            description: "The MCP server whose resources to list or read.",
          },
          uri: {
            type: "string",
            minLength: 1,
            description: "The resource to read, as listed (e.g. file:///notes.md).",
          },
          offset: { type: "integer", minimum: 1, description: "The first line to show (1-based)." },
          limit: { type: "integer", minimum: 1, description: "How many lines to show." },
        },
        additionalProperties: false,
      },
      // Reading what a server exposes changes nothing.
      permission: "r",
      timeoutMs: DEFAULT_TOOL_TIMEOUT_MS,
      maxOutputLength,
    },
    execute,
  };
}
