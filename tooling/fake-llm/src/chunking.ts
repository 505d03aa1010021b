/** Script format: "Characters per streamed delta (default 16)". */
export const DEFAULT_CHUNK_SIZE = 16;

/**
 * Splits `text` into deltas of at most `size` characters. Counts Unicode code points, not
 * UTF-16 units, so a delta never ends in half a surrogate pair (an emoji stays whole) and the
 * deltas always concatenate back to exactly `text`.
 */
export function splitIntoChunks(text: string, size: number = DEFAULT_CHUNK_SIZE): string[] {
  if (!Number.isInteger(size) || size < 1) {
    throw new RangeError(`chunk size must be a positive integer, got ${size}`);
  }
  const codePoints = Array.from(text);
  const chunks: string[] = [];
  for (let start = 0; start < codePoints.length; start += size) {
    chunks.push(codePoints.slice(start, start + size).join(""));
  }
  return chunks;
}
