// Tool output is a string a model provider must accept as JSON text. A lone UTF-16 surrogate
// (from a decoder bug, a chunk cut inside a pair, or a tool that builds strings by hand) makes
// some providers reject the whole request, so the Environment makes every string well-formed
// before anything else sees it.

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const REPLACEMENT_CHARACTER = "\uFFFD";

/** `text` with every unpaired surrogate replaced by U+FFFD. */
export function toWellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, REPLACEMENT_CHARACTER);
}

function endsWithHighSurrogate(text: string): boolean {
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff;
}

/**
 * The streaming form: a high surrogate at the end of a chunk is held back until the next chunk
 * shows whether its low half follows, so a pair split across two deltas survives intact.
 */
export class WellFormedStream {
  private pending = "";

  push(chunk: string): string {
    let text = this.pending + chunk;
    this.pending = "";
    if (endsWithHighSurrogate(text)) {
      this.pending = text.slice(-1);
      text = text.slice(0, -1);
    }
    return toWellFormed(text);
  }

  flush(): string {
    const rest = toWellFormed(this.pending);
    this.pending = "";
    return rest;
  }
}
