// Tool output is a string a model provider must accept as JSON text. A lone UTF-16 surrogate
// (from a decoder bug, a chunk cut inside a pair, or a tool that builds strings by hand) makes
// some providers reject the whole request, so the Environment makes every string well-formed
// before anything else sees it.

/**
 * ES2024's String.prototype.isWellFormed / toWellFormed, which Node 20's V8 has (native, and
 * several times faster than a look-around regular expression on the hot path of a tool that
 * streams megabytes); the ES2022 library the packages compile against does not declare them.
 */
const wellFormedMethods = String.prototype as unknown as {
  isWellFormed(this: string): boolean;
  toWellFormed(this: string): string;
};

/** `text` with every unpaired surrogate replaced by U+FFFD. */
export function toWellFormed(text: string): string {
  return wellFormedMethods.isWellFormed.call(text) ? text : wellFormedMethods.toWellFormed.call(text);
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
