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

const encoder = new TextEncoder();

/**
 * The bytes of one call's output, bounded by `budget`: every byte while the total fits, else the
 * first `headMax` bytes and the most recent bytes that fit in the rest of the budget.
 *
 * Text is encoded straight into two windows allocated once (the head, and the tail as a ring), so
 * a producer streaming gigabytes costs no allocation per chunk: on a fast stream, per-chunk
 * Buffers pile up faster than the garbage collector frees them.
 */
export class ArchiveCapture {
  private readonly headMax: number;
  private readonly tailMax: number;
  private head: Buffer | undefined;
  private headBytes = 0;
  private headFull = false;
  private ring: Buffer | undefined;
  /** Next write position in the ring. */
  private ringPos = 0;
  /** Where the data of the previous pass ends (a pass stops up to 3 bytes short of the end). */
  private ringEnd = 0;
  private wrapped = false;
  private total = 0;

  constructor(budget: number = ARCHIVE_BUDGET_BYTES) {
    this.headMax = Math.floor(budget * ARCHIVE_HEAD_SHARE);
    this.tailMax = budget - this.headMax;
  }

  get totalBytes(): number {
    return this.total;
  }

  /** Bytes of output held now (never more than the budget). */
  get retainedBytes(): number {
    return this.headBytes + (this.wrapped ? this.ringEnd : this.ringPos);
  }

  /** Whether the whole text fits the budget (the file will be an exact copy). */
  get exact(): boolean {
    return !this.wrapped;
  }

  push(text: string): void {
    let rest = text;
    if (!this.headFull) {
      this.head ??= Buffer.allocUnsafe(this.headMax);
      const { read, written } = encoder.encodeInto(rest, this.head.subarray(this.headBytes));
      this.headBytes += written;
      this.total += written;
      rest = rest.slice(read);
      // encodeInto never splits a character: whatever did not fit goes to the tail.
      if (rest.length > 0) this.headFull = true;
    }
    while (rest.length > 0) {
      this.ring ??= Buffer.allocUnsafe(this.tailMax);
      const { read, written } = encoder.encodeInto(rest, this.ring.subarray(this.ringPos));
      this.ringPos += written;
      this.total += written;
      rest = rest.slice(read);
      if (rest.length > 0) {
        // The ring is full up to a character boundary: start the next pass over the oldest bytes.
        this.ringEnd = this.ringPos;
        this.ringPos = 0;
        this.wrapped = true;
      }
    }
  }

  /** The tail in order, oldest byte first. */
  private tailBytes(): Buffer {
    if (!this.ring) return Buffer.alloc(0);
    if (!this.wrapped) return this.ring.subarray(0, this.ringPos);
    const older =
      this.ringPos < this.ringEnd ? this.ring.subarray(this.ringPos, this.ringEnd) : Buffer.alloc(0);
    return Buffer.concat([older, this.ring.subarray(0, this.ringPos)]);
  }

  /** The file content: the exact text, or head + middle-gap marker + tail cut at character boundaries. */
  contents(): Buffer[] {
    const head = this.head ? this.head.subarray(0, this.headBytes) : Buffer.alloc(0);
    if (this.exact) return [head, this.tailBytes()];
    const fullTail = this.tailBytes();
    // Room for the gap marker comes out of the oldest tail bytes, so the file stays within budget.
    const tail = cutToCharBoundaryStart(
      fullTail.subarray(Math.min(fullTail.length, ARCHIVE_GAP_MARKER_RESERVE_BYTES)),
    );
    const omitted = this.total - head.length - tail.length;
    return [cutToCharBoundaryEnd(head), Buffer.from(archiveGapMarker(omitted), "utf8"), tail];
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
