import { describe, expect, it } from "vitest";
import { OutputDecoder, replaceControlCharacters } from "../../src/processes/output-decoder.js";
import {
  DEFAULT_UNREAD_BUFFER_CHARS,
  droppedOutputMarker,
  UnreadBuffer,
} from "../../src/tools/command/index.js";

describe("the unread buffer", () => {
  it("holds 1 MiB of characters by default", () => {
    expect(DEFAULT_UNREAD_BUFFER_CHARS).toBe(1_048_576);
    expect(new UnreadBuffer().capChars).toBe(1_048_576);
  });

  it("returns what was appended, in order, once", () => {
    const buffer = new UnreadBuffer(100);
    buffer.append("ab");
    buffer.append("");
    buffer.append("cd");
    expect(buffer.take()).toBe("abcd");
    expect(buffer.take()).toBe("");
    expect(buffer.isEmpty).toBe(true);
  });

  it("drops the oldest text past the cap and says how much, with the exact marker", () => {
    const buffer = new UnreadBuffer(5);
    buffer.append("abc");
    buffer.append("def");
    buffer.append("gh");
    expect(buffer.size).toBe(5);
    expect(buffer.droppedChars).toBe(3);
    expect(buffer.take()).toBe("[..., 3 chars of earlier output dropped ...]\ndefgh");
    // The count starts again after a read.
    buffer.append("1234567");
    expect(buffer.take()).toBe("[..., 2 chars of earlier output dropped ...]\n34567");
  });

  it("keeps only the tail of a single append larger than the cap", () => {
    const buffer = new UnreadBuffer(4);
    buffer.append("xy");
    buffer.append("0123456789");
    expect(buffer.take()).toBe(`${droppedOutputMarker(8)}6789`);
  });

  it("never splits a surrogate pair when it drops", () => {
    const buffer = new UnreadBuffer(3);
    buffer.append("a😀bc"); // "😀" is two UTF-16 code units
    const text = buffer.take();
    expect(text).toBe(`${droppedOutputMarker(3)}bc`);
  });

  it("rejects a cap that is not a positive integer", () => {
    expect(() => new UnreadBuffer(0)).toThrow("unread buffer cap must be a positive integer, got 0");
  });
});

describe("output decoding", () => {
  it("keeps a multi-byte character split across chunks", () => {
    const decoder = new OutputDecoder();
    const bytes = Buffer.from("é😀", "utf8");
    const parts = [...bytes].map((byte) => decoder.write(Uint8Array.of(byte)));
    expect(parts.join("") + decoder.end()).toBe("é😀");
  });

  it("turns invalid bytes and a truncated trailing character into U+FFFD", () => {
    const decoder = new OutputDecoder();
    expect(decoder.write(Uint8Array.of(0x61, 0xff, 0x62, 0xe2, 0x82))).toBe("a\uFFFDb");
    expect(decoder.end()).toBe("\uFFFD");
  });

  it("decodes ASCII and UTF-8 alike however the bytes are chunked, pending bytes included", () => {
    // ASCII chunks take a fast path; it must never skip bytes the UTF-8 decoder is holding.
    const text = "plain ascii\n é and 😀 then ascii again\n€ end";
    const bytes = Buffer.concat([Buffer.from(text, "utf8"), Uint8Array.of(0xe2, 0x82), Buffer.from("tail")]);
    const expected = new TextDecoder().decode(bytes);
    for (const size of [1, 2, 3, 5, 13, bytes.length]) {
      const decoder = new OutputDecoder();
      let decoded = "";
      for (let i = 0; i < bytes.length; i += size) decoded += decoder.write(bytes.subarray(i, i + size));
      expect(decoded + decoder.end()).toBe(expected);
    }
    const decoder = new OutputDecoder();
    expect(decoder.write(Uint8Array.of(0x61, 0xc3))).toBe("a");
    expect(decoder.write(Buffer.from("bc"))).toBe("\uFFFDbc");
  });

  it("replaces NUL and other control characters but keeps tab, newline, carriage return and ESC", () => {
    expect(replaceControlCharacters("a\0b\x01\x08\x0b\x0c\x7f\t\n\r\x1b[1m")).toBe(
      "a\uFFFDb\uFFFD\uFFFD\uFFFD\uFFFD\x7f\t\n\r\x1b[1m",
    );
  });
});
