import { describe, expect, it } from "vitest";
import { OutputDecoder } from "../../src/processes/output-decoder.js";
import { hasUnsafeControlBytes, replaceControlCharacters } from "../../src/text/control-characters.js";

// The byte check that lets a chunk of command output skip the pattern must agree with the
// pattern on every byte value, wherever the byte sits in a word and however the chunk is aligned.

const byPattern = (bytes: Uint8Array) => {
  const text = Buffer.from(bytes).toString("latin1");
  return replaceControlCharacters(text) !== text;
};

describe("the unsafe control byte check", () => {
  it("agrees with the rule for every byte value at every position and alignment", () => {
    const backing = Buffer.alloc(64, 0x61);
    for (let offset = 0; offset < 4; offset++) {
      for (let length = 0; length <= 13; length++) {
        for (let at = 0; at < length; at++) {
          for (let value = 0; value < 256; value++) {
            backing.fill(0x61);
            const view = backing.subarray(offset, offset + length);
            view[at] = value;
            expect(hasUnsafeControlBytes(view), `byte ${value} at ${at}/${length}+${offset}`).toBe(
              byPattern(view),
            );
          }
        }
      }
    }
  });

  it("agrees with the rule on random text of tabs, newlines, ESC and printable characters", () => {
    const safe = [0x09, 0x0a, 0x0d, 0x1b, 0x20, 0x41, 0x7e];
    for (let round = 0; round < 500; round++) {
      const bytes = Buffer.from(
        Array.from(
          { length: 1 + (round % 97) },
          () => safe[Math.floor(Math.random() * safe.length)] as number,
        ),
      );
      if (round % 2 === 1) bytes[Math.floor(Math.random() * bytes.length)] = Math.floor(Math.random() * 0x20);
      expect(hasUnsafeControlBytes(bytes)).toBe(byPattern(bytes));
    }
  });

  it("an ASCII chunk with a NUL is still replaced; one with only tabs, newlines and ESC is kept as is", () => {
    const decoder = new OutputDecoder();
    expect(decoder.write(Buffer.from("ok\tline\r\n\x1b[1m"))).toBe("ok\tline\r\n\x1b[1m");
    expect(decoder.lastWriteAscii).toBe(true);
    expect(decoder.write(Buffer.from("a\0b\x07c"))).toBe("a\uFFFDb\uFFFDc");
    expect(decoder.lastWriteAscii).toBe(false);
  });
});
