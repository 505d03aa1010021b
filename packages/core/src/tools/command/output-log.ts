import { DEFAULT_UNREAD_BUFFER_CHARS, droppedOutputMarker } from "./unread-buffer.js";

/** Chunks shorter than this are joined with the next one (see `append`). */
const COALESCE_CHARS = 8 * 1024;

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
  private chunks: string[] = [];
  /** Absolute position of the first retained character. */
  private startPos = 0;
  /** Absolute position after the newest character (characters ever appended). */
  private endPos = 0;
  /** Newlines in the dropped text: lines that were dropped whole. */
  private droppedNewlines = 0;
  /** The last dropped character, to know whether the first retained line lost its beginning. */
  private lastDropped = "";

  constructor(readonly capChars: number = DEFAULT_UNREAD_BUFFER_CHARS) {
    if (!Number.isInteger(capChars) || capChars < 1) {
      throw new RangeError(`output buffer cap must be a positive integer, got ${capChars}`);
    }
  }

  /** Absolute position of the oldest character still held (= characters dropped so far). */
  get start(): number {
    return this.startPos;
  }

  /** Absolute position after the newest character (= characters appended so far). */
  get end(): number {
    return this.endPos;
  }

  /** Characters held; never more than the cap. */
  get size(): number {
    return this.endPos - this.startPos;
  }

  append(text: string): void {
    if (text.length === 0) return;
    // A command that writes a character at a time must not leave a million tiny strings behind:
    // small chunks are joined into the newest one until it reaches a useful size.
    const last = this.chunks.length - 1;
    if (last >= 0 && (this.chunks[last] as string).length < COALESCE_CHARS) this.chunks[last] += text;
    else this.chunks.push(text);
    this.endPos += text.length;
    this.dropOverflow();
  }

  /**
   * The text from absolute position `position` to the end, with the dropped-output marker first
   * when part of it is gone. Reading does not change the log.
   */
  readFrom(position: number): string {
    const from = Math.max(position, this.startPos);
    const dropped = from - position;
    const marker = dropped > 0 ? droppedOutputMarker(dropped) : "";
    if (from >= this.endPos) return marker;
    return marker + this.textFrom(from);
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

  /** The held text from `from` on; walks back from the newest chunk, so a reader that keeps up copies only what is new. */
  private textFrom(from: number): string {
    const parts: string[] = [];
    let chunkStart = this.endPos;
    for (let i = this.chunks.length - 1; i >= 0 && chunkStart > from; i--) {
      const chunk = this.chunks[i] as string;
      chunkStart -= chunk.length;
      parts.push(chunkStart >= from ? chunk : chunk.slice(from - chunkStart));
    }
    return parts.reverse().join("");
  }

  /**
   * The held text as lines. When the oldest held line lost its beginning it counts as dropped
   * and is left out, unless it is all that is held: the tail of a single line longer than the
   * cap is still worth showing, marked with a leading "…".
   */
  private retainedLines(): { lines: string[]; firstLine: number; dropped: number } {
    if (this.size === 0)
      return { lines: [], firstLine: this.droppedNewlines + 1, dropped: this.droppedNewlines };
    const text = this.textFrom(this.startPos);
    const lines = text.split("\n");
    // A trailing newline ends the last line; it does not start an empty one.
    if (lines[lines.length - 1] === "") lines.pop();
    const headCut = this.startPos > 0 && this.lastDropped !== "\n";
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

  private dropOverflow(): void {
    let excess = this.size - this.capChars;
    while (excess > 0) {
      const oldest = this.chunks[0] as string;
      const cut = oldest.length <= excess ? oldest.length : safeCut(oldest, excess);
      const gone = oldest.slice(0, cut);
      this.droppedNewlines += countNewlines(gone);
      if (gone.length > 0) this.lastDropped = gone[gone.length - 1] as string;
      if (cut === oldest.length) this.chunks.shift();
      else this.chunks[0] = oldest.slice(cut);
      this.startPos += cut;
      excess -= cut;
    }
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

function countNewlines(text: string): number {
  let count = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count += 1;
  return count;
}

/** `index`, moved forward by one if it would split a surrogate pair. */
function safeCut(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff && index < text.length ? index + 1 : index;
}
