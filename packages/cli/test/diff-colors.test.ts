import { describe, expect, test } from "vitest";
import { styleToolOutput } from "../src/render/diff-colors.js";
import { createStyle } from "../src/render/style.js";

const colour = createStyle(true);
const RED = (s: string) => `\u001b[31m${s}\u001b[39m`;
const GREEN = (s: string) => `\u001b[32m${s}\u001b[39m`;
const DIM = (s: string) => `\u001b[2m${s}\u001b[22m`;

describe("diffs in tool outputs", () => {
  test("a unified diff's added lines are green, removed ones red; the text around it dim", () => {
    const output = [
      "Overwrote a.txt (3 lines, 12 bytes; previously 14 bytes).",
      "--- a.txt",
      "+++ a.txt",
      "@@ -1,3 +1,3 @@",
      " one",
      "-two",
      "+2",
      "… 4 more lines …",
      "+more",
      "[exit code: 0]",
      "-not a diff line",
    ].join("\n");
    const lines = styleToolOutput(output, "write_file", colour);
    expect(lines[0]).toBe(DIM("Overwrote a.txt (3 lines, 12 bytes; previously 14 bytes)."));
    expect(lines.slice(4, 7)).toEqual([DIM(" one"), RED("-two"), GREEN("+2")]);
    expect(lines[8]).toBe(GREEN("+more"));
    // After the diff ends, a line starting with "-" is ordinary output.
    expect(lines[10]).toBe(DIM("-not a diff line"));
  });

  test("apply_patch's summary and a +X/−Y summary are coloured by what changed", () => {
    const output =
      "Applied the patch (3 files):\nA new.md\nM main.py (+1 \u22122)\nD gone.txt\n+80/\u2212100 lines";
    const lines = styleToolOutput(output, "apply_patch", colour);
    expect(lines[1]).toBe(`${GREEN("A")} new.md`);
    expect(lines[2]).toBe(`\u001b[33mM\u001b[39m main.py (${GREEN("+1")} ${RED("\u22122")})`);
    expect(lines[3]).toBe(`${RED("D")} gone.txt`);
    expect(lines[4]).toBe(`${GREEN("+80")}/${RED("\u2212100")} lines`);
  });

  test("without colour every line is left as it is", () => {
    const output = "--- a\n+++ a\n@@ -1 +1 @@\n-x\n+y";
    expect(styleToolOutput(output, "edit_file", createStyle(false)).join("\n")).toBe(output);
  });
});
