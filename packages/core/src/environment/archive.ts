import { open } from "node:fs/promises";
import { join } from "node:path";
import { ensurePrivateDir, PRIVATE_FILE_MODE } from "@penguin/state";
import {
  ARCHIVE_BUDGET_BYTES,
  ARCHIVE_GAP_MARKER_RESERVE_BYTES,
  ARCHIVE_HEAD_SHARE,
  ARCHIVE_NAME_ATTEMPTS,
  ARCHIVE_NAME_MAX_CHARS,
} from "./limits.js";
import { archiveGapMarker } from "./markers.js";

// "Recovering oversized output": while a call runs, the Environment keeps the raw text it
// receives in a bounded capture (the whole text up to the per-call budget, else a head window and
// a sliding tail window), and writes it to a session-owned recovery file only if the visible
// output was actually truncated.

/**
 * The bytes of one call's output, bounded by `budget`: every byte while the total fits, else the
 * first `headMax` bytes and the most recent bytes that fit in the rest of the budget.
 */
export class ArchiveCapture {
  private readonly headMax: number;
  private readonly tailMax: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;

  constructor(private readonly budget: number = ARCHIVE_BUDGET_BYTES) {
    this.headMax = Math.floor(budget * ARCHIVE_HEAD_SHARE);
    this.tailMax = budget - this.headMax;
  }

  get totalBytes(): number {
    return this.total;
  }

  /** Bytes held in memory now (never more than the budget). */
  get retainedBytes(): number {
    return this.headBytes + this.tailBytes;
  }

  /** Whether the whole text fits the budget (the file will be an exact copy). */
  get exact(): boolean {
    return this.total <= this.budget;
  }

  push(text: string): void {
    if (text.length === 0) return;
    let bytes = Buffer.from(text, "utf8");
    this.total += bytes.length;
    const headRoom = this.headMax - this.headBytes;
    if (headRoom > 0) {
      const part = bytes.length <= headRoom ? bytes : Buffer.from(bytes.subarray(0, headRoom));
      this.head.push(part);
      this.headBytes += part.length;
      bytes = bytes.subarray(part.length);
      if (bytes.length === 0) return;
    }
    this.tail.push(bytes);
    this.tailBytes += bytes.length;
    this.trimTail(this.tailMax);
  }

  /** Drops the oldest tail bytes until at most `max` remain (copies a cut buffer so the rest can be freed). */
  private trimTail(max: number): void {
    while (this.tailBytes > max && this.tail.length > 0) {
      const first = this.tail[0];
      const excess = this.tailBytes - max;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
      } else {
        this.tail[0] = Buffer.from(first.subarray(excess));
        this.tailBytes -= excess;
      }
    }
  }

  /** The file content: the exact text, or head + middle-gap marker + tail cut at character boundaries. */
  contents(): Buffer[] {
    if (this.exact) return [...this.head, ...this.tail];
    const head = cutToCharBoundaryEnd(Buffer.concat(this.head));
    this.trimTail(this.tailMax - ARCHIVE_GAP_MARKER_RESERVE_BYTES);
    const tail = cutToCharBoundaryStart(Buffer.concat(this.tail));
    const omitted = this.total - head.length - tail.length;
    return [head, Buffer.from(archiveGapMarker(omitted), "utf8"), tail];
  }
}

function isContinuationByte(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

function utf8SequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if ((lead & 0xe0) === 0xc0) return 2;
  if ((lead & 0xf0) === 0xe0) return 3;
  if ((lead & 0xf8) === 0xf0) return 4;
  return 1;
}

/** `bytes` without a trailing incomplete UTF-8 sequence. */
function cutToCharBoundaryEnd(bytes: Buffer): Buffer {
  let lead = bytes.length - 1;
  while (lead > 0 && bytes.length - lead < 4 && isContinuationByte(bytes[lead])) lead -= 1;
  if (lead < 0) return bytes;
  return lead + utf8SequenceLength(bytes[lead]) > bytes.length ? bytes.subarray(0, lead) : bytes;
}

/** `bytes` without leading continuation bytes (the rest of a character cut off by the window). */
function cutToCharBoundaryStart(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length && start < 3 && isContinuationByte(bytes[start])) start += 1;
  return bytes.subarray(start);
}

/** A tool call id as a file name: safe characters only, no leading dot, bounded length. */
export function archiveFileName(toolCallId: string, attempt = 0): string {
  const safe = toolCallId
    .replace(/[^A-Za-z0-9_-]/g, "_")
    .slice(0, ARCHIVE_NAME_MAX_CHARS)
    .replace(/^_*$/, "call");
  return attempt === 0 ? `${safe}.txt` : `${safe}-${attempt + 1}.txt`;
}

export type ArchiveWriteResult =
  | { ok: true; path: string; bytes: number; windowed: boolean }
  | { ok: false; code: string };

/** The short code of a file system error (`EACCES`, `ENOTDIR`…), never its message or path. */
export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[A-Z0-9_]{1,32}$/.test(code) ? code : "EUNKNOWN";
}

/**
 * Writes the capture to `dir/<tool call id>.txt` (a new file, never an existing one: a resumed
 * session may reuse a call id), mode 0600 in folders created 0700 ("use private permissions where
 * the platform supports them"). Never throws: a failure is reported as its error code.
 */
export async function writeArchive(
  dir: string,
  toolCallId: string,
  capture: ArchiveCapture,
): Promise<ArchiveWriteResult> {
  try {
    await ensurePrivateDir(dir);
    const contents = capture.contents();
    for (let attempt = 0; attempt < ARCHIVE_NAME_ATTEMPTS; attempt += 1) {
      const path = join(dir, archiveFileName(toolCallId, attempt));
      let handle: Awaited<ReturnType<typeof open>>;
      try {
        handle = await open(path, "wx", PRIVATE_FILE_MODE);
      } catch (error) {
        if (errorCode(error) === "EEXIST") continue;
        throw error;
      }
      try {
        if (process.platform !== "win32") await handle.chmod(PRIVATE_FILE_MODE);
        await handle.writeFile(Buffer.concat(contents));
      } finally {
        await handle.close();
      }
      return { ok: true, path, bytes: capture.totalBytes, windowed: !capture.exact };
    }
    return { ok: false, code: "EEXIST" };
  } catch (error) {
    return { ok: false, code: errorCode(error) };
  }
}
