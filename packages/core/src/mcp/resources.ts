import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { ReadResourceResult, Resource, ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import { mapCallResult } from "./call-result.js";
import { MCP_SDK_REQUEST_TIMEOUT_MS } from "./limits.js";

// A server's resources (`resources/list`, `resources/templates/list`, `resources/read`) as text
// the model reads: what `read_mcp_resource` shows and what a resource link in a result resolves to.

export interface ResourceListing {
  resources: Resource[];
  templates: ResourceTemplate[];
  /** Whether resources past the listing cap were left out. */
  more: boolean;
}

type ResourceContents = ReadResourceResult["contents"][number];

/** Every page of `resources/list` up to `max` entries, and the server's templates. */
export async function listResources(
  client: Client,
  max: number,
  signal?: AbortSignal,
): Promise<ResourceListing> {
  const options = { signal, timeout: MCP_SDK_REQUEST_TIMEOUT_MS };
  const resources: Resource[] = [];
  let cursor: string | undefined;
  let more = false;
  do {
    const page = await client.listResources(cursor ? { cursor } : undefined, options);
    resources.push(...page.resources);
    cursor = page.nextCursor;
    if (resources.length >= max) {
      more = resources.length > max || cursor !== undefined;
      resources.length = Math.min(resources.length, max);
      break;
    }
  } while (cursor);
  let templates: ResourceTemplate[] = [];
  try {
    templates = (await client.listResourceTemplates(undefined, options)).resourceTemplates;
  } catch (error) {
    // Templates are optional: a server without them answers "method not found".
    if (signal?.aborted) throw error;
  }
  return { resources, templates, more };
}

/** `resources/read` of one uri. */
export async function readResource(
  client: Client,
  uri: string,
  signal?: AbortSignal,
): Promise<ResourceContents[]> {
  const result = await client.readResource({ uri }, { signal, timeout: MCP_SDK_REQUEST_TIMEOUT_MS });
  return result.contents;
}

/** One line per resource and template of a server. */
export function listingLines(listing: ResourceListing): string[] {
  const lines = listing.resources.map((resource) => {
    const label = resource.title ?? resource.name;
    const type = resource.mimeType ? ` (${resource.mimeType})` : "";
    const about = resource.description ? `: ${oneLine(resource.description)}` : "";
    return `- ${resource.uri}  ${label}${type}${about}`;
  });
  if (listing.resources.length === 0) lines.push("(no resources listed)");
  if (listing.more) lines.push("(more resources not shown)");
  for (const template of listing.templates) {
    const about = template.description ? `: ${oneLine(template.description)}` : "";
    lines.push(`- template ${template.uriTemplate}  ${template.title ?? template.name}${about}`);
  }
  return lines;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

export interface RenderedContents {
  /** The text of every text item, and a one-line note for each binary item not sent. */
  text: string;
  /** Images the model can read, as data URLs. */
  images: string[];
}

/**
 * Read contents as text and images: text items as they are (a header line names each item when
 * there are several), images as images for a model that reads them, other binary content as a note.
 */
export function renderContents(
  contents: readonly ResourceContents[],
  modelHasVision: boolean,
): RenderedContents {
  const parts: string[] = [];
  const images: string[] = [];
  for (const item of contents) {
    if (contents.length > 1) parts.push(`[${item.uri}${item.mimeType ? ` (${item.mimeType})` : ""}]`);
    if ("text" in item && typeof item.text === "string") {
      parts.push(item.text);
      continue;
    }
    const blob = "blob" in item && typeof item.blob === "string" ? item.blob : "";
    const mimeType = item.mimeType ?? "application/octet-stream";
    // The same rules as an MCP tool's content: sendable images attached, everything else noted.
    const block = mimeType.startsWith("image/")
      ? { type: "image" as const, data: blob, mimeType }
      : { type: "resource" as const, resource: { uri: item.uri, mimeType, blob } };
    const mapped = mapCallResult({ content: [block] }, { modelHasVision });
    images.push(...mapped.images);
    if (mapped.text !== "") parts.push(mapped.text);
  }
  return { text: parts.join("\n"), images };
}
