// Counting the newlines of command output, which the output log does for every character it
// drops (to number lines over the life of a command). Both shapes of output must stay cheap:
// sparse newlines (long lines, or none) are found fastest by the engine's search, one call per
// line; dense ones (`yes`, a newline every couple of characters) by a plain scan, because a
// search call costs as much as scanning a dozen characters.

const NEWLINE = 0x0a;
/** Searches made before deciding whether the lines are short enough for a plain scan. */
const SAMPLE_LINES = 32;
/** Average line length (characters) below which a plain scan is faster than searching. */
const DENSE_LINE_CHARS = 24;

/** Newlines in `bytes` (Latin-1 or UTF-8: a newline is always one 0x0A byte). */
export function countNewlineBytes(bytes: Buffer): number {
  let count = 0;
  let at = 0;
  while (at < bytes.length) {
    if (count === SAMPLE_LINES && at / count < DENSE_LINE_CHARS) {
      for (let i = at; i < bytes.length; i++) if (bytes[i] === NEWLINE) count += 1;
      return count;
    }
    const found = bytes.indexOf(NEWLINE, at);
    if (found === -1) return count;
    count += 1;
    at = found + 1;
  }
  return count;
}

/** Newlines in `text`. */
export function countNewlines(text: string): number {
  let count = 0;
  let at = 0;
  while (at < text.length) {
    if (count === SAMPLE_LINES && at / count < DENSE_LINE_CHARS) {
      for (let i = at; i < text.length; i++) if (text.charCodeAt(i) === NEWLINE) count += 1;
      return count;
    }
    const found = text.indexOf("\n", at);
    if (found === -1) return count;
    count += 1;
    at = found + 1;
  }
  return count;
}
