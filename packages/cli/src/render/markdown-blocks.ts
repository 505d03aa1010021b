// The model's text arrives in deltas that cut anywhere: in a word, in `**bold**`, in a table.
// A terminal cannot take back what it printed, so Markdown is rendered a block at a time, once
// the block is complete: a paragraph, list, quote or table ends at a blank line followed by a
// line that starts at the margin (an indented line may still belong to a list item); a fenced
// code block at its closing fence (blank lines inside it end nothing); an ATX heading at its
// newline. Until then its text waits here. Every character pushed is handed back exactly once,
// in order.

/** An opening or closing code fence: up to three spaces, then three or more ` or ~. */
const FENCE = /^( {0,3})(`{3,}|~{3,})(.*)$/;
/** An ATX heading at the margin. */
const HEADING = /^#{1,6}(?:[ \t]|$)/;
const BLANK = /^[ \t]*$/;

interface OpenFence {
  marker: string;
}

export class MarkdownBlocks {
  /** Text received and not handed back yet. */
  private pending = "";
  /** How far into `pending` the lines were already read (always at a line's start). */
  private scanned = 0;
  /** The end of the complete blocks read so far in `pending`. */
  private complete = 0;
  private fence: OpenFence | undefined;
  /** A blank line was read outside a fence: the next line at the margin starts a new block. */
  private afterBlank = false;

  /** Adds a delta; returns the text of the blocks it completed ("" when none). */
  push(delta: string): string {
    this.pending += delta;
    for (;;) {
      const end = this.pending.indexOf("\n", this.scanned);
      if (end === -1) break;
      this.readLine(this.pending.slice(this.scanned, end), this.scanned, end + 1);
      this.scanned = end + 1;
    }
    return this.take(this.complete);
  }

  /** Everything not handed back yet (the text ended, or something else must print now). */
  flush(): string {
    const rest = this.pending;
    this.pending = "";
    this.scanned = 0;
    this.complete = 0;
    this.fence = undefined;
    this.afterBlank = false;
    return rest;
  }

  /** Whether text is waiting for its block to complete. */
  get hasPending(): boolean {
    return this.pending.length > 0;
  }

  private readLine(line: string, start: number, next: number): void {
    if (this.fence) {
      const match = FENCE.exec(line);
      if (match && match[2][0] === this.fence.marker[0] && match[2].length >= this.fence.marker.length) {
        if (match[3].trim() === "") {
          this.fence = undefined;
          this.complete = next;
        }
      }
      return;
    }
    if (BLANK.test(line)) {
      this.afterBlank = true;
      return;
    }
    const atMargin = !/^[ \t]/.test(line);
    if (this.afterBlank && atMargin) this.complete = start;
    this.afterBlank = false;
    const fence = FENCE.exec(line);
    // A backtick fence's info string has no backtick (else the line is inline code).
    if (fence && !(fence[2][0] === "`" && fence[3].includes("`"))) {
      this.fence = { marker: fence[2] };
      return;
    }
    if (HEADING.test(line)) this.complete = next;
  }

  /** Hands back the first `length` characters of `pending`. */
  private take(length: number): string {
    if (length === 0) return "";
    const text = this.pending.slice(0, length);
    this.pending = this.pending.slice(length);
    this.scanned -= length;
    this.complete = 0;
    return text;
  }
}
