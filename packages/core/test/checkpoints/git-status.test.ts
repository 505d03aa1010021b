import { describe, expect, it } from "vitest";
import { parseStatus } from "../../src/checkpoints/git-snapshot.js";

// `git status --porcelain=v1 -z` as git prints it: names verbatim (spaces, newlines), and for a
// rename or copy the target then the source, each ended by NUL.

describe("reading git status -z", () => {
  it("lists both ends of a rename (a copy's target only), names with spaces and newlines verbatim, a nested repository without its slash", () => {
    const output = [
      " M a b.txt",
      "R  new.txt",
      "old.txt",
      "?? line\nbreak.txt",
      "C  copy.txt",
      "src.txt",
      "?? sub/",
      "",
    ].join("\0");
    expect(parseStatus(output)).toEqual([
      ["a b.txt", " M"],
      ["new.txt", "R "],
      ["old.txt", "R <-"],
      ["line\nbreak.txt", "??"],
      ["copy.txt", "C "],
      ["sub", "??"],
    ]);
  });

  it("an empty status lists nothing", () => {
    expect(parseStatus("")).toEqual([]);
  });
});
