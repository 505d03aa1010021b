import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { sniffImageType } from "../tools/files/image-source.js";

// A result's `structuredContent` as text for the model. Servers often repeat their content
// blocks there (the filesystem server's read_media_file returns `{content: [<the image block>]}`),
// and given as JSON such a copy would put the image's base64 into the text: up to the output cap of
// characters the model cannot read, re-sent with every later request. So a copy of the content
// blocks is left out, and base64 media data never reaches the text.

type Block = CallToolResult["content"][number];

/** Shorter base64 strings cannot hold an image header worth sniffing (8 bytes = 12 characters). */
const BASE64_IMAGE_MIN_CHARS = 12;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const DATA_URL_BASE64 = /^data:[^,;]*(;[^,;]*)*;base64,/i;

/** Keys sorted at every level, so two equal values give the same text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== "object" || Array.isArray(inner)) return inner;
    return Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}

/** The base64 payloads of the content blocks (images, audio, binary resources). */
function mediaPayloads(content: readonly Block[]): Set<string> {
  const payloads = new Set<string>();
  for (const block of content) {
    if (block.type === "image" || block.type === "audio") payloads.add(block.data);
    if (block.type === "resource" && "blob" in block.resource && typeof block.resource.blob === "string") {
      payloads.add(block.resource.blob);
    }
  }
  return payloads;
}

function looksLikeBase64Image(text: string): boolean {
  if (text.length < BASE64_IMAGE_MIN_CHARS || !BASE64.test(text.slice(0, 64))) return false;
  return sniffImageType(Buffer.from(text.slice(0, 64), "base64")) !== undefined;
}

/** A string that carries base64 media, as a note of its size; other strings unchanged. */
function withoutMedia(text: string, payloads: ReadonlySet<string>, mediaField: boolean): string {
  const dataUrl = DATA_URL_BASE64.exec(text);
  const data = dataUrl ? text.slice(dataUrl[0].length) : text;
  if (mediaField || dataUrl || payloads.has(text) || looksLikeBase64Image(text)) {
    return `[base64 data (${base64Bytes(data.trim())} bytes) left out]`;
  }
  return text;
}

/**
 * `value` with every part equal to a content block removed, and base64 media replaced by notes;
 * undefined when nothing but (empty) containers would be left.
 */
function strip(value: unknown, blocks: ReadonlySet<string>, payloads: ReadonlySet<string>): unknown {
  if (value === null || typeof value !== "object") {
    return typeof value === "string" ? withoutMedia(value, payloads, false) : value;
  }
  if (blocks.has(canonical(value))) return undefined;
  if (Array.isArray(value)) {
    const items = value.map((item) => strip(item, blocks, payloads)).filter((item) => item !== undefined);
    return items.length === 0 ? undefined : items;
  }
  const record = value as Record<string, unknown>;
  // An MCP media block's payload, or a resource's blob, even when no content block matches it.
  const isMedia = record.type === "image" || record.type === "audio";
  const entries: [string, unknown][] = [];
  for (const [key, inner] of Object.entries(record)) {
    const mediaField = typeof inner === "string" && ((isMedia && key === "data") || key === "blob");
    const kept = mediaField ? withoutMedia(inner, payloads, true) : strip(inner, blocks, payloads);
    if (kept !== undefined) entries.push([key, kept]);
  }
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

/**
 * The structured content as JSON text, or undefined when it is left out: when the server sent text
 * of its own (servers are asked to repeat structured content as text, and most do), or when it
 * only repeats the content blocks.
 */
export function structuredContentText(result: CallToolResult): string | undefined {
  const content = result.content ?? [];
  if (result.structuredContent === undefined) return undefined;
  if (content.some((block) => block.type === "text")) return undefined;
  const blocks = new Set(content.map(canonical));
  const kept = strip(result.structuredContent, blocks, mediaPayloads(content));
  return kept === undefined ? undefined : JSON.stringify(kept, null, 2);
}
