import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describeError } from "./error-text.js";
import {
  MCP_RESOURCE_LINK_MAX_CHARS,
  MCP_RESOURCE_LINKS_READ_MAX,
  READ_MCP_RESOURCE_TOOL,
} from "./limits.js";
import { type RenderedContents, readResource, renderContents } from "./resources.js";

// "resolve resource links in results": a tool that answers with a `resource_link` points at
// content instead of sending it. The first few links of a result are read from the same server
// and their content follows the result, each under its link's uri, so the model gets the content,
// not just an address. A link that cannot be read says why.

export interface LinkSource {
  /** The server's name, for the note that says how to read the rest of a long resource. */
  server: string;
  client: Client;
  modelHasVision: boolean;
  signal?: AbortSignal;
}

function cut(text: string, server: string, uri: string): string {
  if (text.length <= MCP_RESOURCE_LINK_MAX_CHARS) return text;
  return `${text.slice(0, MCP_RESOURCE_LINK_MAX_CHARS)}\n[… cut at ${MCP_RESOURCE_LINK_MAX_CHARS} characters; read the rest with ${READ_MCP_RESOURCE_TOOL} {server: "${server}", uri: "${uri}", offset}]`;
}

/**
 * The content of the result's first `MCP_RESOURCE_LINKS_READ_MAX` resource links, as text and
 * images to add after the result; undefined when it has no link. Never throws: an interrupt ends
 * the reading, and the Environment reports it.
 */
export async function readResourceLinks(
  result: CallToolResult,
  source: LinkSource,
): Promise<RenderedContents | undefined> {
  const uris = (result.content ?? []).flatMap((block) => (block.type === "resource_link" ? [block.uri] : []));
  if (uris.length === 0) return undefined;
  const parts: string[] = [];
  const images: string[] = [];
  for (const uri of uris.slice(0, MCP_RESOURCE_LINKS_READ_MAX)) {
    try {
      const rendered = renderContents(
        await readResource(source.client, uri, source.signal),
        source.modelHasVision,
      );
      parts.push(`[linked resource ${uri}]`);
      if (rendered.text !== "") parts.push(cut(rendered.text, source.server, uri));
      images.push(...rendered.images);
    } catch (error) {
      if (source.signal?.aborted) break;
      parts.push(`[linked resource ${uri} could not be read: ${describeError(error)}]`);
    }
  }
  return { text: parts.join("\n"), images };
}
