import {
  READ_FILE_CHUNK_BYTES,
  READ_FILE_LINE_NUMBER_WIDTH,
  READ_FILE_MAX_LINE_CHARS,
  READ_FILE_SCAN_CAP_BYTES,
} from "../../environment/limits.js";
import { openRegularForReading } from "./regular-file.js";

// Reads a window of lines from a file of any size by streaming it: only the lines inside the
// window are kept (each cut to a bounded length), so a window near the end of a 100 MB file
// costs one pass and a few chunks of memory. After the window, lines are still counted up to the
// 8 MiB scan cap so the continuation note can say how many lines there are.

/** A line longer than this is cut; enough bytes are kept to decode that many characters. */
const MAX_LINE_BYTES_KEPT = READ_FILE_MAX_LINE_CHARS * 4;
const LF = 0x0a;

export interface WindowRequest {
  offset: number;
  limit: number;
  /** Stop adding lines before the formatted window exceeds this many characters (<= 0: no cap). */
  maxChars: number;
  signal?: AbortSignal;
}

export type WindowResult =
  | { kind: "binary" }
  | { kind: "aborted" }
  | {
      kind: "text";
      /** Formatted `cat -n` lines. */
      lines: string[];
      firstLine: number;
      /** Line count of the file, when the whole file was scanned. */
      totalLines: number | undefined;
      /** Whether lines follow the window. */
      more: boolean;
      /** Whether the window stopped early to keep the output within `maxChars`. */
      cutForSize: boolean;
    };

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** A line read from a file: its kept bytes decoded, a CR before the newline dropped. */
function formatLine(lineNumber: number, bytes: Buffer, fullByteLength: number): string {
  let text = bytes.toString("utf8");
  if (fullByteLength === bytes.length && text.endsWith("\r")) text = text.slice(0, -1);
  return numberedLine(lineNumber, text, fullByteLength > bytes.length);
}

/**
 * `cat -n`: the line number right-aligned, a tab, the content; an overlong line (or one
 * `alreadyCut`) ends with a marker.
 */
export function numberedLine(lineNumber: number, content: string, alreadyCut = false): string {
  let text = content;
  let cut = alreadyCut;
  if (text.length > READ_FILE_MAX_LINE_CHARS) {
    let end = READ_FILE_MAX_LINE_CHARS;
    if (isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    text = text.slice(0, end);
    cut = true;
  }
  const marker = cut ? ` [… line truncated at ${READ_FILE_MAX_LINE_CHARS} chars]` : "";
  return `${String(lineNumber).padStart(READ_FILE_LINE_NUMBER_WIDTH)}\t${text}${marker}`;
}

/**
 * The same window over lines already in memory (e.g. the text extracted from a PDF), formatted and
 * capped exactly like a file's.
 */
export function windowOfLines(all: readonly string[], request: Omit<WindowRequest, "signal">): WindowResult {
  const { offset, limit, maxChars } = request;
  const lines: string[] = [];
  let chars = 0;
  let cutForSize = false;
  const end = Math.min(all.length, offset - 1 + limit);
  for (let index = offset - 1; index < end; index += 1) {
    const formatted = numberedLine(index + 1, all[index] ?? "");
    const added = formatted.length + (lines.length > 0 ? 1 : 0);
    if (maxChars > 0 && lines.length > 0 && chars + added > maxChars) {
      cutForSize = true;
      break;
    }
    lines.push(formatted);
    chars += added;
  }
  return {
    kind: "text",
    lines,
    firstLine: offset,
    totalLines: all.length,
    more: offset - 1 + lines.length < all.length,
    cutForSize,
  };
}

export async function readLineWindow(path: string, request: WindowRequest): Promise<WindowResult> {
  const { offset, limit, maxChars, signal } = request;
  const lastWanted = offset + limit - 1;
  const handle = await openRegularForReading(path);
  try {
    const { size } = await handle.stat();
    const chunk = Buffer.allocUnsafe(READ_FILE_CHUNK_BYTES);
    const lines: string[] = [];
    let chars = 0;
    let lineNumber = 1;
    let parts: Buffer[] = [];
    let partBytes = 0;
    let lineBytes = 0;
    let windowDone = false;
    let cutForSize = false;
    let scanned = 0;
    let position = 0;

    const collecting = () => !windowDone && lineNumber >= offset;
    const finishLine = () => {
      if (collecting()) {
        const formatted = formatLine(lineNumber, Buffer.concat(parts, partBytes), lineBytes);
        const added = formatted.length + (lines.length > 0 ? 1 : 0);
        if (maxChars > 0 && lines.length > 0 && chars + added > maxChars) {
          windowDone = true;
          cutForSize = true;
        } else {
          lines.push(formatted);
          chars += added;
          if (lineNumber >= lastWanted) windowDone = true;
        }
      }
      lineNumber += 1;
      parts = [];
      partBytes = 0;
      lineBytes = 0;
    };
    const keep = (bytes: Buffer) => {
      lineBytes += bytes.length;
      if (!collecting() || partBytes >= MAX_LINE_BYTES_KEPT) return;
      const part = bytes.subarray(0, MAX_LINE_BYTES_KEPT - partBytes);
      parts.push(Buffer.from(part));
      partBytes += part.length;
    };

    for (;;) {
      if (signal?.aborted) return { kind: "aborted" };
      // After the window, only count lines, and only within the scan cap.
      if (windowDone && scanned >= READ_FILE_SCAN_CAP_BYTES && position < size) {
        return { kind: "text", lines, firstLine: offset, totalLines: undefined, more: true, cutForSize };
      }
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const data = chunk.subarray(0, bytesRead);
      if (data.indexOf(0) !== -1) return { kind: "binary" };
      scanned += bytesRead;
      let start = 0;
      for (;;) {
        if (!collecting()) {
          // Outside the window lines are only counted: no per-line work beyond finding the newline.
          const newline = data.indexOf(LF, start);
          if (newline === -1) {
            lineBytes += data.length - start;
            break;
          }
          lineNumber += 1;
          lineBytes = 0;
          start = newline + 1;
          continue;
        }
        const newline = data.indexOf(LF, start);
        if (newline === -1) {
          keep(data.subarray(start));
          break;
        }
        keep(data.subarray(start, newline));
        finishLine();
        start = newline + 1;
      }
    }
    // The last line of a file that does not end with a newline.
    if (lineBytes > 0) finishLine();
    const totalLines = lineNumber - 1;
    const lastShown = offset + lines.length - 1;
    return {
      kind: "text",
      lines,
      firstLine: offset,
      totalLines,
      more: lastShown < totalLines,
      cutForSize,
    };
  } finally {
    await handle.close();
  }
}
