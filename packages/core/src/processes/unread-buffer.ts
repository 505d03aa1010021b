import { DEFAULT_UNREAD_BUFFER_CHARS } from "@penguin/state";

/**
 * "Command/subagent producers also keep a capped unread buffer (1 MiB per command session) that
 * drops oldest text with a marker": the size is the command tools' (with `tools.limits.jobs`).
 */
export { DEFAULT_UNREAD_BUFFER_CHARS };

/** The marker put where dropped text was: `[..., N chars of earlier output dropped ...]`. */
export function droppedOutputMarker(droppedChars: number): string {
  return `[..., ${droppedChars} chars of earlier output dropped ...]\n`;
}

/**
 * Output a command produced that nobody has read yet. Appends are O(1); when the text exceeds
 * the cap the oldest text goes, and the next read starts with a marker saying how much went.
 * Reading empties it, so output read once is never returned twice.
 */
export class UnreadBuffer {
  private chunks: string[] = [];
  private chars = 0;
  private dropped = 0;

  constructor(readonly capChars: number = DEFAULT_UNREAD_BUFFER_CHARS) {
    if (!Number.isInteger(capChars) || capChars < 1) {
      throw new RangeError(`unread buffer cap must be a positive integer, got ${capChars}`);
    }
  }

  /** Characters held (the marker is not counted); never more than the cap. */
  get size(): number {
    return this.chars;
  }

  /** Characters dropped since the last read. */
  get droppedChars(): number {
    return this.dropped;
  }

  get isEmpty(): boolean {
    return this.chars === 0 && this.dropped === 0;
  }

  append(text: string): void {
    if (text.length === 0) return;
    if (text.length >= this.capChars) {
      // The new text alone fills the buffer: keep only its tail.
      const cut = safeCut(text, text.length - this.capChars);
      this.dropped += this.chars + cut;
      this.chunks = [text.slice(cut)];
      this.chars = text.length - cut;
      return;
    }
    this.chunks.push(text);
    this.chars += text.length;
    this.dropOverflow();
  }

  /** Everything unread (with the dropped-output marker first, if anything was dropped); empties the buffer. */
  take(): string {
    const marker = this.dropped > 0 ? droppedOutputMarker(this.dropped) : "";
    const text = marker + this.chunks.join("");
    this.chunks = [];
    this.chars = 0;
    this.dropped = 0;
    return text;
  }

  private dropOverflow(): void {
    let excess = this.chars - this.capChars;
    while (excess > 0) {
      const oldest = this.chunks[0] as string;
      if (oldest.length <= excess) {
        this.chunks.shift();
        this.chars -= oldest.length;
        this.dropped += oldest.length;
        excess -= oldest.length;
        continue;
      }
      const cut = safeCut(oldest, excess);
      this.chunks[0] = oldest.slice(cut);
      this.chars -= cut;
      this.dropped += cut;
      excess -= cut;
    }
  }
}

/** `index`, moved forward by one if it would split a surrogate pair. */
function safeCut(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff && index < text.length ? index + 1 : index;
}
