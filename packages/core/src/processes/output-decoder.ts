import { isAscii } from "node:buffer";
import { hasUnsafeControlBytes, replaceControlCharacters } from "../text/control-characters.js";

// The one rule for control characters, shared with MCP results and hook output.
export { REPLACEMENT_CHARACTER, replaceControlCharacters } from "../text/control-characters.js";

/**
 * Turns a stream of stdout or stderr bytes into text for the model.
 *
 * - UTF-8 with a streaming decoder: a multi-byte character split across two chunks survives;
 *   invalid bytes become U+FFFD (the decoder is not fatal).
 * - Control characters: NUL and the other C0 controls except tab, newline, carriage return and
 *   ESC become U+FFFD. Binary output (NUL runs, random bytes) then reaches the model as a
 *   readable run of replacement characters, never as raw NULs that some provider APIs and
 *   databases reject. ESC is kept so that ANSI sequences from tools that ignore NO_COLOR stay
 *   recognisable as such instead of turning into stray `[31m` fragments.
 */
export class OutputDecoder {
  private readonly decoder = new TextDecoder("utf-8", { fatal: false });
  /** Whether the decoder may hold the first bytes of a character that the chunk boundary cut. */
  private holdsPartial = false;
  /** Whether the text of the last `write` was plain ASCII (no replacement characters either). */
  lastWriteAscii = false;

  /** Text for the next chunk; an incomplete trailing character waits for the next chunk. */
  write(chunk: Uint8Array): string {
    this.lastWriteAscii = false;
    if (chunk.length === 0) return "";
    if (!this.holdsPartial && isAscii(chunk)) {
      // Most output is ASCII, and for it a byte-for-byte copy is the decoding, several times
      // faster than the UTF-8 decoder (this is the hot path of a command printing gigabytes).
      const text = asBuffer(chunk).toString("latin1");
      // The byte check is cheaper than the pattern's scan of the text, and most chunks pass it.
      if (!hasUnsafeControlBytes(chunk)) {
        this.lastWriteAscii = true;
        return text;
      }
      const safe = replaceControlCharacters(text);
      this.lastWriteAscii = safe === text;
      return safe;
    }
    const text = this.decoder.decode(chunk, { stream: true });
    // An ASCII last byte ends (or completes) every sequence: nothing is left pending.
    this.holdsPartial = (chunk[chunk.length - 1] as number) >= 0x80;
    return replaceControlCharacters(text);
  }

  /** Text left at the end of the stream (an incomplete trailing character becomes U+FFFD). */
  end(): string {
    this.holdsPartial = false;
    return replaceControlCharacters(this.decoder.decode());
  }
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
