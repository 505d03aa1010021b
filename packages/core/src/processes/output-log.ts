import { countNewlines } from "./count-newlines.js";
import { TextRing } from "./text-ring.js";
import { DEFAULT_UNREAD_BUFFER_CHARS, droppedOutputMarker } from "./unread-buffer.js";

/**
 * The output of one command session, kept once and read two ways:
 *
 * - by **position** (`readFrom`): the consuming readers (exec_command, input_command, run_command,
 *   wait_job) share one cursor kept by the session, so "output read once is not returned twice";
 * - by **line** (`lineWindow`): read_job_output and list_jobs look at a window of lines without
 *   moving any cursor.
 *
 * Positions are absolute: character `n` is the n-th character the command ever printed
 * (counting from 0), so a cursor stays meaningful while the log drops its oldest text. Lines are
 * numbered from 1 over the whole life of the command, the same way.
 *
 * The log holds at most `capChars` characters (UTF-16 code units of decoded text); past that it
 * drops its oldest text, exactly as many characters as needed (never half a surrogate pair). A
 * reader whose cursor points into dropped text gets the `[..., N chars of earlier output dropped
 * ...]` marker first; a line window reports how many lines were lost (wholly or in part).
 */
export class OutputLog {
  private readonly ring: TextRing;
  /** Newlines in the dropped text: lines that were dropped whole. */
  private droppedNewlines = 0;
  /** Whether the last dropped character was a newline (else the first held line lost its start). */
  private lastDroppedNewline = false;

  constructor(readonly capChars: number = DEFAULT_UNREAD_BUFFER_CHARS) {
    if (!Number.isInteger(capChars) || capChars < 1) {
      throw new RangeError(`output buffer cap must be a positive integer, got ${capChars}`);
    }
    this.ring = new TextRing(capChars);
  }

  /** Absolute position of the oldest character still held (= characters dropped so far). */
  get start(): number {
    return this.ring.start;
  }

  /** Absolute position after the newest character (= characters appended so far). */
  get end(): number {
    return this.ring.end;
  }

  /** Characters held; never more than the cap. */
  get size(): number {
    return this.ring.size;
  }

  /** `knownOneByte`: every character is at most U+00FF (the log then need not scan for it). */
  append(text: string, knownOneByte = false): void {
    if (text.length === 0) return;
    let kept = text;
    const beyondCap = kept.length - this.capChars;
    if (beyondCap > 0) {
      // Longer than the whole log: everything held goes, and so does the head of the text.
      this.dropHeld(this.ring.size);
      const cut = safeCut(kept, beyondCap);
      const gone = kept.slice(0, cut);
      this.droppedNewlines += countNewlines(gone);
      this.lastDroppedNewline = gone.charCodeAt(gone.length - 1) === NEWLINE;
      this.ring.skip(cut);
      kept = kept.slice(cut);
    } else if (kept.length > this.ring.room) {
      this.dropHeld(kept.length - this.ring.room);
    }
    this.ring.write(kept, knownOneByte);
  }

  /**
   * The text from absolute position `position` to the end, with the dropped-output marker first
   * when part of it is gone. Reading does not change the log.
   */
  readFrom(position: number): string {
    const from = Math.max(position, this.start);
    const dropped = from - position;
    const marker = dropped > 0 ? droppedOutputMarker(dropped) : "";
    if (from >= this.end) return marker;
    return marker + this.ring.text(from);
  }

  /**
   * A window of whole lines, by absolute line number. Without `offset` it is the last `limit`
   * lines (the newest output); with `offset` it starts at that line, or at the oldest line still
   * held when that one is gone. The line still being written (no newline yet) counts as the last
   * line.
   */
  lineWindow(request: { offset?: number; limit: number }): LineWindow {
    const { lines, firstLine, dropped } = this.retainedLines();
    const total = firstLine - 1 + lines.length;
    const limit = Math.max(1, Math.floor(request.limit));
    let first: number;
    if (request.offset === undefined) first = Math.max(firstLine, total - limit + 1);
    else first = Math.max(firstLine, Math.floor(request.offset));
    const shown = first > total ? [] : lines.slice(first - firstLine, first - firstLine + limit);
    return { lines: shown, firstLine: first, totalLines: total, droppedLines: dropped };
  }

  /**
   * The held text as lines. When the oldest held line lost its beginning it counts as dropped
   * and is left out, unless it is all that is held: the tail of a single line longer than the
   * cap is still worth showing, marked with a leading "…".
   */
  private retainedLines(): { lines: string[]; firstLine: number; dropped: number } {
    if (this.size === 0)
      return { lines: [], firstLine: this.droppedNewlines + 1, dropped: this.droppedNewlines };
    const lines = this.ring.text(this.start).split("\n");
    // A trailing newline ends the last line; it does not start an empty one.
    if (lines[lines.length - 1] === "") lines.pop();
    const headCut = this.start > 0 && !this.lastDroppedNewline;
    if (!headCut) return { lines, firstLine: this.droppedNewlines + 1, dropped: this.droppedNewlines };
    if (lines.length === 1) {
      return {
        lines: [`…${lines[0]}`],
        firstLine: this.droppedNewlines + 1,
        dropped: this.droppedNewlines + 1,
      };
    }
    lines.shift();
    return { lines, firstLine: this.droppedNewlines + 2, dropped: this.droppedNewlines + 1 };
  }

  /**
   * Drops the oldest `count` held characters (one more if that would split a surrogate pair).
   * Newlines are counted here, when text goes, not when it comes: most text of a long stream is
   * dropped once and counted once, and the newest text (still held) is never counted at all.
   */
  private dropHeld(count: number): void {
    const from = this.start;
    const to = Math.min(this.end, from + count);
    if (to <= from) return;
    this.droppedNewlines += this.ring.countNewlines(from, to);
    this.lastDroppedNewline = this.ring.unitAt(to - 1) === NEWLINE;
    this.ring.dropFront(to - from);
    if (this.size > 0 && isLowSurrogate(this.ring.unitAt(this.start))) this.dropHeld(1);
  }
}

/** A window of a command's output lines (see `OutputLog.lineWindow`). */
export interface LineWindow {
  lines: string[];
  /** The absolute number of `lines[0]` (1-based). */
  firstLine: number;
  /** Lines the command has printed so far, the unfinished last one included. */
  totalLines: number;
  /** The oldest lines no longer held, wholly or in part ("a non-zero dropped count"). */
  droppedLines: number;
}

const NEWLINE = 0x0a;

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** `index`, moved forward by one if it would split a surrogate pair. */
function safeCut(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff && index < text.length ? index + 1 : index;
}
