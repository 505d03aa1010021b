// Text from outside Penguin (a command's output, an MCP server's result, a hook's output) goes
// to the model, the trace and the user's terminal. Raw control characters do harm in all three:
// NUL makes some provider APIs and databases reject the text, and the other C0 controls (bell,
// backspace, form feed …) rewrite what a terminal shows. Every such text passes this one rule.

/** What an unsafe control character becomes: visible, and accepted by every provider. */
export const REPLACEMENT_CHARACTER = "\uFFFD";

/**
 * "NUL and the other C0 controls except tab, newline, carriage return and ESC become U+FFFD."
 * ESC is kept so that ANSI sequences from tools that ignore NO_COLOR stay recognisable as such
 * instead of turning into stray `[31m` fragments; a terminal front end neutralizes them.
 */
const UNSAFE_CONTROL_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001A\u001C-\u001F]/g;

export function replaceControlCharacters(text: string): string {
  return text.replace(UNSAFE_CONTROL_CHARACTERS, REPLACEMENT_CHARACTER);
}

/** The same rule by byte value (1: unsafe), derived from the pattern above so there is one rule. */
const UNSAFE_BYTE = Uint8Array.from({ length: 0x20 }, (_, code) =>
  new RegExp(UNSAFE_CONTROL_CHARACTERS.source).test(String.fromCharCode(code)) ? 1 : 0,
);

/**
 * Whether bytes that are text one byte a character (ASCII, Latin-1) hold a character the rule
 * replaces. A command printing hundreds of MB/s is checked chunk by chunk, and the pattern scans
 * some 0.8 ns a byte; this reads four bytes at a time (about 0.3 ns a byte) and looks at single
 * bytes only in the words that hold one below 0x20 (tabs, newlines and ESC mostly), so the
 * pattern runs only on chunks that need a replacement.
 */
export function hasUnsafeControlBytes(bytes: Uint8Array): boolean {
  let index = 0;
  const end = bytes.length;
  // Single bytes up to a 4-byte boundary of the underlying memory, then whole words.
  while (index < end && (bytes.byteOffset + index) % 4 !== 0) {
    if (isUnsafeByte(bytes[index] as number)) return true;
    index += 1;
  }
  // (A chunk too short to reach a boundary has no whole word.)
  const words =
    (bytes.byteOffset + index) % 4 === 0
      ? new Uint32Array(bytes.buffer, bytes.byteOffset + index, (end - index) >>> 2)
      : NO_WORDS;
  for (let word = 0; word < words.length; word++) {
    const value = words[word] as number;
    // Non-zero exactly when some byte of the word is below 0x20 (a byte-wise "less than" without
    // a loop); only such a word is looked at byte by byte.
    if (((value - 0x20202020) & ~value & 0x80808080) !== 0) {
      const at = index + word * 4;
      for (let i = at; i < at + 4; i++) if (isUnsafeByte(bytes[i] as number)) return true;
    }
  }
  for (index += words.length * 4; index < end; index++) {
    if (isUnsafeByte(bytes[index] as number)) return true;
  }
  return false;
}

const NO_WORDS = new Uint32Array(0);

function isUnsafeByte(byte: number): boolean {
  return byte < 0x20 && UNSAFE_BYTE[byte] === 1;
}
