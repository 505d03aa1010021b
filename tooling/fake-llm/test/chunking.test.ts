import { describe, expect, it } from "vitest";
import { DEFAULT_CHUNK_SIZE, splitIntoChunks } from "../src/index.js";

describe("splitIntoChunks", () => {
  it("cuts text into deltas of at most the chunk size that concatenate back exactly", () => {
    const text = "The quick brown fox jumps over the lazy dog.";
    const chunks = splitIntoChunks(text, 7);
    expect(chunks.join("")).toBe(text);
    expect(chunks.every((chunk) => Array.from(chunk).length <= 7)).toBe(true);
    expect(chunks).toHaveLength(Math.ceil(text.length / 7));
  });

  it("never splits a surrogate pair", () => {
    const chunks = splitIntoChunks("a🐧b🐧c", 2);
    expect(chunks).toEqual(["a🐧", "b🐧", "c"]);
  });

  it("uses the script format's default of 16 characters", () => {
    expect(DEFAULT_CHUNK_SIZE).toBe(16);
    expect(splitIntoChunks("x".repeat(40))).toEqual(["x".repeat(16), "x".repeat(16), "x".repeat(8)]);
  });

  it("gives no delta for empty text and rejects a chunk size below 1", () => {
    expect(splitIntoChunks("", 4)).toEqual([]);
    expect(() => splitIntoChunks("abc", 0)).toThrow(RangeError);
  });
});
