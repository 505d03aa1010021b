import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describeError, type McpConnection } from "./connection.js";
import {
  MCP_RESOURCE_LINK_MAX_CHARS,
  MCP_RESOURCE_LINKS_READ_MAX,
  READ_MCP_RESOURCE_TOOL,
} from "./limits.js";
import { readResource } from "./resources.js";

// "resolve resource links in results": a tool that answers with a `resource_link` points at
// content instead of sending it. The first few links of a result are read from the same server and
// their content is put right after the link, so the model gets the content, not just an address.
// The link line stays; a link that cannot be read says why.

type Block = CallToolResult["content"][number];

function cut(text: string, server: string, uri: string): string {
  if (text.length <= MCP_RESOURCE_LINK_MAX_CHARS) return text;
  return `${text.slice(0, MCP_RESOURCE_LINK_MAX_CHARS)}\n[… cut at ${MCP_RESOURCE_LINK_MAX_CHARS} characters; read the rest with ${READ_MCP_RESOURCE_TOOL} {server: "${server}", uri: "${uri}", offset}]`;
}

async function linkedContent(connection: McpConnection, uri: string, signal?: AbortSignal): Promise<Block[]> {
  try {
    const contents = await readResource(connection.liveClient(), uri, signal);
    return contents.map((item): Block => {
      if ("text" in item && typeof item.text === "string") {
        return { type: "resource", resource: { ...item, text: cut(item.text, connection.name, item.uri) } };
      }
      const mimeType = item.mimeType ?? "application/octet-stream";
      const blob = "blob" in item && typeof item.blob === "string" ? item.blob : "";
      return mimeType.startsWith("image/")
        ? { type: "image", data: blob, mimeType }
        : { type: "resource", resource: { uri: item.uri, mimeType, blob } };
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    return [
      { type: "resource", resource: { uri, text: `[${uri} could not be read: ${describeError(error)}]` } },
    ];
  }
}

/**
 * The result with the content of its first `MCP_RESOURCE_LINKS_READ_MAX` resource links after
 * each link (only for a server that offers resources). Rejects only when `signal` aborts.
 */
export async function resolveResourceLinks(
  result: CallToolResult,
  connection: McpConnection,
  signal?: AbortSignal,
): Promise<CallToolResult> {
  const content = result.content ?? [];
  if (!connection.hasResources || !content.some((block) => block.type === "resource_link")) return result;
  const resolved: Block[] = [];
  let read = 0;
  for (const block of content) {
    resolved.push(block);
    if (block.type !== "resource_link" || read >= MCP_RESOURCE_LINKS_READ_MAX) continue;
    read += 1;
    resolved.push(...(await linkedContent(connection, block.uri, signal)));
  }
  return { ...result, content: resolved };
}
