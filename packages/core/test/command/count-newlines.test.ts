import { describe, expect, it } from "vitest";
import { countNewlineBytes, countNewlines } from "../../src/processes/count-newlines.js";

const reference = (text: string) => text.split("\n").length - 1;

describe("counting newlines of command output", () => {
  // Dense (`yes`), sparse (long lines), none, and a change of density after the first lines,
  // on both sides of the point where the counter decides how to scan.
  const texts = [
    "",
    "no newline at all",
    "\n",
    "y\n".repeat(10_000),
    `${"a".repeat(200)}\n`.repeat(500),
    `${"x\n".repeat(40)}${"a".repeat(5_000)}\n${"b".repeat(300)}`,
    `${"a".repeat(100)}\n`.repeat(31) + "y\n".repeat(1_000),
    "\n".repeat(33),
  ];

  it("agrees with a plain split for text, dense or sparse", () => {
    for (const text of texts) expect(countNewlines(text)).toBe(reference(text));
  });

  it("agrees with a plain split for bytes, and counts only inside the view it is given", () => {
    for (const text of texts) {
      const bytes = Buffer.from(`\n\n${text}\n\n`, "latin1");
      expect(countNewlineBytes(bytes.subarray(2, bytes.length - 2))).toBe(reference(text));
    }
    // UTF-8: a newline is never part of a multi-byte character.
    const utf8 = "é😀\n€\n".repeat(100);
    expect(countNewlineBytes(Buffer.from(utf8, "utf8"))).toBe(200);
  });
});
