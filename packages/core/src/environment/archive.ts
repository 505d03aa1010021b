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
//
// The rule of the archive's size: "One call stores at most 8 MiB (the production byte limit is one
// byte lower so read_file remains below its 8 MiB scan cap)" — ARCHIVE_BUDGET_BYTES (limits.ts,
// next to read_file's cap it is derived from) is every capture's default budget below.

const encoder = new TextEncoder();

/**
 * Windows of finished captures, kept for the next call (at most one per size). Without them
 * every call with a big output takes fresh megabytes, and the dead windows of earlier calls stay
 * until V8 runs a full collection (it sees them only as external memory), so a session running
 * a few big commands in a row would hold a few budgets' worth of dead windows.
 */
const spareWindows = new Map<number, Buffer>();

function takeWindow(size: number): Buffer {
  const spare = spareWindows.get(size);
  if (!spare) return Buffer.allocUnsafeSlow(size);
  spareWindows.delete(size);
  return spare;
}

function returnWindow(window: Buffer | undefined): void {
  if (window && !spareWindows.has(window.length)) spareWindows.set(window.length, window);
}

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
  private released = false;

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
    if (this.released) throw new Error("archive capture used after release");
    let rest = text;
    if (!this.headFull) {
      this.head ??= takeWindow(this.headMax);
      const { read, written } = encoder.encodeInto(rest, this.head.subarray(this.headBytes));
      this.headBytes += written;
      this.total += written;
      rest = rest.slice(read);
      // encodeInto never splits a character: whatever did not fit goes to the tail.
      if (rest.length > 0) this.headFull = true;
    }
    while (rest.length > 0) {
      this.ring ??= takeWindow(this.tailMax);
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

  /**
   * Hands the windows back for the next capture; the capture is unusable afterwards. Called once
   * the recovery file is written (or not needed).
   */
  release(): void {
    if (this.released) return;
    this.released = true;
    returnWindow(this.head);
    returnWindow(this.ring);
    this.head = undefined;
    this.ring = undefined;
  }

  /** The tail in order, oldest byte first, as one or two views of the ring (never a copy). */
  private tailPieces(): Buffer[] {
    if (!this.ring) return [];
    if (!this.wrapped) return [this.ring.subarray(0, this.ringPos)];
    const older = this.ringPos < this.ringEnd ? [this.ring.subarray(this.ringPos, this.ringEnd)] : [];
    return [...older, this.ring.subarray(0, this.ringPos)];
  }

  /**
   * The file content as views of the windows, to be written in order: the exact text, or head +
   * middle-gap marker + tail, cut at character boundaries.
   */
  contents(): Buffer[] {
    if (this.released) throw new Error("archive capture used after release");
    const head = this.head ? this.head.subarray(0, this.headBytes) : Buffer.alloc(0);
    if (this.exact) return [head, ...this.tailPieces()];
    // Room for the gap marker comes out of the oldest tail bytes, so the file stays within budget.
    const tail = skipLeadingContinuationBytes(
      dropFrontBytes(this.tailPieces(), ARCHIVE_GAP_MARKER_RESERVE_BYTES),
    );
    const tailBytes = tail.reduce((sum, piece) => sum + piece.length, 0);
    const keptHead = cutToCharBoundaryEnd(head);
    const omitted = this.total - keptHead.length - tailBytes;
    return [keptHead, Buffer.from(archiveGapMarker(omitted), "utf8"), ...tail];
  }
}

/** `pieces` without their first `count` bytes. */
function dropFrontBytes(pieces: Buffer[], count: number): Buffer[] {
  let left = count;
  const kept: Buffer[] = [];
  for (const piece of pieces) {
    if (left >= piece.length) {
      left -= piece.length;
      continue;
    }
    kept.push(left > 0 ? piece.subarray(left) : piece);
    left = 0;
  }
  return kept;
}

/** `pieces` without leading continuation bytes (the rest of a character cut off by the window). */
function skipLeadingContinuationBytes(pieces: Buffer[]): Buffer[] {
  let skipped = 0;
  for (const piece of pieces) {
    for (const byte of piece) {
      if (skipped >= 3 || !isContinuationByte(byte)) return dropFrontBytes(pieces, skipped);
      skipped += 1;
    }
  }
  return dropFrontBytes(pieces, skipped);
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
        // Piece by piece from the windows: joining them first would copy up to the whole budget.
        for (const piece of contents) await handle.writeFile(piece);
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
