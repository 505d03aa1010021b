import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { IMAGE_MAX_BYTES } from "../environment/limits.js";
import { type ImageMimeType, sniffImageType } from "../tools/files/image-source.js";
import { structuredContentText } from "./structured-content.js";

// "results mapped: text content → output, image content → `images` (data URLs), structured
// content → JSON text, `isError` → stop_reason failed". What the model cannot take (audio, binary
// resources, images it cannot read or that are too large) becomes a one-line note in the output,
// so the model knows something was there. Structured content never brings base64 media or a copy
// of the content blocks into the text.

/** An MCP tool result as Penguin's tool output. */
export interface MappedResult {
  /** The text blocks, one per line. */
  text: string;
  /** png/jpeg/gif/webp images as data URLs. */
  images: string[];
  /** The server said the call failed (`isError`). */
  failed: boolean;
}

export interface MapOptions {
  /** Whether the session's model reads images; without it images are described, not sent. */
  modelHasVision: boolean;
}

type Block = CallToolResult["content"][number];

const SENDABLE_IMAGE_TYPES: ReadonlySet<string> = new Set<ImageMimeType>([
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
]);

/** Bytes a base64 string decodes to, without decoding it. */
function base64Bytes(data: string): number {
  const trimmed = data.replace(/\s+/g, "");
  const padding = trimmed.endsWith("==") ? 2 : trimmed.endsWith("=") ? 1 : 0;
  return Math.floor((trimmed.length * 3) / 4) - padding;
}

function imageBlock(
  block: { data: string; mimeType: string },
  options: MapOptions,
): string | { note: string } {
  const bytes = base64Bytes(block.data);
  const declared = block.mimeType.toLowerCase();
  if (!options.modelHasVision) {
    return { note: `[image (${declared}, ${bytes} bytes) not shown: this model does not read images]` };
  }
  if (bytes > IMAGE_MAX_BYTES) {
    return { note: `[image (${declared}, ${bytes} bytes) left out: larger than ${IMAGE_MAX_BYTES} bytes]` };
  }
  // Trust the bytes over the label: a provider rejects a PNG sent as image/jpeg.
  const head = Buffer.from(block.data.slice(0, 64), "base64");
  const type = sniffImageType(head) ?? declared;
  if (!SENDABLE_IMAGE_TYPES.has(type)) {
    return {
      note: `[image (${declared}) left out: only png, jpeg, gif and webp images can be sent to the model]`,
    };
  }
  return `data:${type};base64,${block.data}`;
}

function blockText(block: Block, images: string[], options: MapOptions): string | undefined {
  switch (block.type) {
    case "text":
      return block.text;
    case "image": {
      const image = imageBlock(block, options);
      if (typeof image === "string") {
        images.push(image);
        return undefined;
      }
      return image.note;
    }
    case "audio":
      return `[audio (${block.mimeType}, ${base64Bytes(block.data)} bytes) left out: audio cannot be sent to the model]`;
    case "resource_link":
      return `[resource: ${block.uri}${block.name ? ` (${block.name})` : ""}${block.mimeType ? ` ${block.mimeType}` : ""}]`;
    case "resource": {
      const resource = block.resource;
      if ("text" in resource && typeof resource.text === "string") return resource.text;
      const blob = "blob" in resource && typeof resource.blob === "string" ? resource.blob : "";
      return `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ""}: ${base64Bytes(blob)} bytes of binary content left out]`;
    }
    default:
      return `[content of type "${(block as { type: string }).type}" left out]`;
  }
}

/**
 * Maps a `tools/call` result. Structured content is given as JSON text when it adds something
 * (see structured-content.ts).
 */
export function mapCallResult(result: CallToolResult, options: MapOptions): MappedResult {
  const images: string[] = [];
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    const text = blockText(block, images, options);
    if (text !== undefined) parts.push(text);
  }
  const structured = structuredContentText(result);
  if (structured !== undefined) parts.push(structured);
  return { text: parts.join("\n"), images, failed: result.isError === true };
}
