import type { FileAccess } from "../../environment/file-access.js";
import { READ_FILE_SCAN_CAP_BYTES } from "../../environment/limits.js";
import type { ToolExecutionContext } from "../../environment/types.js";
import { sha256Of } from "./hashes.js";
import { type WindowRequest, type WindowResult, windowOfLines } from "./line-window.js";
import { readRegularFile, writeRegularFile } from "./regular-file.js";

// The text of a file for read_file, edit_file and write_file: from the disk, or through the
// session's `FileAccess` seam (an editor's buffers) when it has one. "the existence/type/size/binary
// checks still happen on disk first (the editor only answers for text)": every read through the
// seam first opens the file on disk, so a missing file, a folder, a pipe or binary content is
// answered exactly as without a seam; then line windows and hashes come from the seam's text.

/**
 * A larger file is read from the disk even with a seam: an editor's buffer is text a person
 * edits, and read_file pages through larger files without holding them (its line-count scan cap).
 */
export const SEAM_READ_MAX_BYTES = READ_FILE_SCAN_CAP_BYTES;

/** The seam read_file uses for a file of `size` bytes, if any. */
export function seamFor(ctx: ToolExecutionContext, size: number): FileAccess | undefined {
  return size <= SEAM_READ_MAX_BYTES ? ctx.files : undefined;
}

/**
 * A text's lines as read_file numbers a file's: split at "\n", a "\r" before it dropped, and no
 * line after a final line break.
 */
export function linesOfText(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
}

/** Whether bytes (or text) hold a NUL: "binary content (NUL bytes) is rejected". */
function hasNul(content: Uint8Array | string): boolean {
  return typeof content === "string" ? content.includes("\0") : content.includes(0);
}

/**
 * read_file's window of a file through the seam, with the sha256 of the text it showed (the hash
 * the write guard compares later changes with).
 */
export async function readWindowThrough(
  files: FileAccess,
  path: string,
  request: WindowRequest,
): Promise<{ window: WindowResult; sha256?: string }> {
  if (hasNul(await readRegularFile(path))) return { window: { kind: "binary" } };
  const text = await files.readText(path, { signal: request.signal });
  if (hasNul(text)) return { window: { kind: "binary" } };
  return { window: windowOfLines(linesOfText(text), request), sha256: sha256Of(text) };
}

/**
 * The whole content of an existing file that a tool is about to change: the disk's bytes (binary
 * ones as they are, for the tool to refuse), else the seam's text as UTF-8. Throws as reading
 * the disk or the seam does.
 */
export async function readForChange(ctx: ToolExecutionContext, path: string): Promise<Buffer> {
  const bytes = await readRegularFile(path);
  if (!ctx.files || hasNul(bytes)) return bytes;
  return Buffer.from(await ctx.files.readText(path, { signal: ctx.signal }), "utf8");
}

/** The sha256 of what `readForChange` would return, for a file too large to hold for a diff. */
export async function hashForChange(
  ctx: ToolExecutionContext,
  path: string,
  hashDisk: () => Promise<string | undefined>,
): Promise<string | undefined> {
  if (!ctx.files) return hashDisk();
  return sha256Of(await readForChange(ctx, path));
}

/** Writes a changed file's text through the seam, else to the disk (regular files only). */
export async function writeForChange(ctx: ToolExecutionContext, path: string, text: string): Promise<void> {
  if (ctx.files) await ctx.files.writeText(path, text, { signal: ctx.signal });
  else await writeRegularFile(path, text);
}
