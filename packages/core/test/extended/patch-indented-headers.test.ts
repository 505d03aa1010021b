import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parsePatch } from "../../src/tools/extended/apply-patch/patch-parser.js";
import { extendedEnvironment, runCall, type TempDirs, workspace } from "./support.js";

// Patches as models really write them: envelope and file header lines indented with spaces or
// tabs (a patch quoted inside a list, a tab typed before a header). Such a line is a header,
// never a context line of the hunk above it.

let dirs: TempDirs;
let ws: string;
beforeEach(async () => {
  dirs = await workspace();
  ws = dirs.workspaceDir;
});
afterEach(async () => {
  await dirs.cleanup();
});

async function apply(lines: string[]) {
  const env = extendedEnvironment(dirs);
  return (await runCall(env, "apply_patch", { patch: lines.join("\n") })).complete;
}
const read = (name: string) => readFile(join(ws, name), "utf8");

describe("apply_patch with indented envelope and header lines", () => {
  it("applies a patch whose file headers start with spaces or tabs", async () => {
    await writeFile(join(ws, "a.txt"), "one\ntwo\n");
    await writeFile(join(ws, "old.txt"), "keep\n");
    await writeFile(join(ws, "gone.txt"), "bye\n");
    const out = await apply([
      "  *** Begin Patch",
      "  *** Update File: a.txt",
      "@@",
      " one",
      "-two",
      "+TWO",
      "\t*** Add File: new.txt",
      "+fresh",
      " \t*** Update File: old.txt",
      "    *** Move to: moved.txt",
      "\t*** Delete File: gone.txt",
      "  *** End Patch",
    ]);
    expect(out.output).toBe(
      [
        "Applied the patch (4 files):",
        `M ${join(ws, "a.txt")} (+1 \u22121)`,
        `A ${join(ws, "new.txt")}`,
        `R ${join(ws, "old.txt")} -> ${join(ws, "moved.txt")}`,
        `D ${join(ws, "gone.txt")}`,
      ].join("\n"),
    );
    expect(out.stop_reason).toBe("completed");
    expect(await read("a.txt")).toBe("one\nTWO\n");
    expect(await read("new.txt")).toBe("fresh\n");
    expect(await read("moved.txt")).toBe("keep\n");
    await expect(stat(join(ws, "gone.txt"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("reads an indented header after a valid hunk as the next file, not as a context line of the previous one", async () => {
    await writeFile(join(ws, "a.txt"), "alpha\nbeta\n");
    await writeFile(join(ws, "b.txt"), "gamma\ndelta\n");
    const out = await apply([
      "*** Begin Patch",
      "*** Update File: a.txt",
      "@@",
      " alpha",
      "-beta",
      "+BETA",
      "  *** Update File: b.txt",
      "@@",
      " gamma",
      "-delta",
      "+DELTA",
      "*** End Patch",
    ]);
    expect(out.stop_reason).toBe("completed");
    expect(await read("a.txt")).toBe("alpha\nBETA\n");
    expect(await read("b.txt")).toBe("gamma\nDELTA\n");
  });

  it("blames the file the failing hunk belongs to when it follows an indented header", async () => {
    await writeFile(join(ws, "a.txt"), "alpha\nbeta\n");
    await writeFile(join(ws, "b.txt"), "gamma\ndelta\n");
    const out = await apply([
      "*** Begin Patch",
      "*** Update File: a.txt",
      "-beta",
      "+BETA",
      "\t*** Update File: b.txt",
      "-epsilon",
      "+EPSILON",
      "*** End Patch",
    ]);
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toBe(
      `hunk 1 (patch line 6) of ${join(ws, "b.txt")}: its context and removed lines were not found. The first of them is "epsilon". No file was changed.`,
    );
    expect(await read("a.txt")).toBe("alpha\nbeta\n");
    expect(await read("b.txt")).toBe("gamma\ndelta\n");
  });

  it("ends a hunk at an indented *** End of File line", async () => {
    await writeFile(join(ws, "a.txt"), "x\ny\nx\ny\n");
    const out = await apply([
      "*** Begin Patch",
      "*** Update File: a.txt",
      "@@",
      " x",
      "-y",
      "+Y",
      "  *** End of File",
      "*** End Patch",
    ]);
    expect(out.stop_reason).toBe("completed");
    expect(await read("a.txt")).toBe("x\ny\nx\nY\n");
  });
});

describe("the patch envelope, indented", () => {
  it("parses indented headers into the same operations as flush ones", () => {
    const flush = parsePatch(
      [
        "*** Begin Patch",
        "*** Add File: n",
        "+1",
        "*** Update File: u",
        "*** Move to: v",
        "@@ ctx",
        " c",
        "-o",
        "+n",
        "*** End of File",
        "*** Delete File: d",
        "*** End Patch",
      ].join("\n"),
    );
    const indented = parsePatch(
      [
        "\t*** Begin Patch",
        "  *** Add File: n",
        "+1",
        "\t*** Update File: u",
        "   *** Move to: v",
        "@@ ctx",
        " c",
        "-o",
        "+n",
        " *** End of File",
        "  *** Delete File: d",
        "\t*** End Patch",
      ].join("\n"),
    );
    expect(flush.ok).toBe(true);
    expect(indented).toEqual(flush);
  });

  it("refuses header lines in the wrong place instead of reading them as text", () => {
    expect(
      parsePatch(
        ["*** Begin Patch", "*** Add File: a", "+x", "  *** Move to: b", "*** End Patch"].join("\n"),
      ),
    ).toEqual({
      ok: false,
      error: 'Patch line 4: "*** Move to: " must come right after an "*** Update File: " line.',
    });
    expect(
      parsePatch(
        ["*** Begin Patch", "*** Update File: a", "-x", "+y", "  *** Move to: b", "*** End Patch"].join("\n"),
      ),
    ).toEqual({
      ok: false,
      error: 'Patch line 5: "*** Move to: " must come right after an "*** Update File: " line.',
    });
    expect(
      parsePatch(
        ["*** Begin Patch", "  *** End of File", "*** Update File: a", "-x", "*** End Patch"].join("\n"),
      ),
    ).toEqual({
      ok: false,
      error: 'Patch line 2: "*** End of File" must end a hunk.',
    });
    expect(
      parsePatch(
        [
          "*** Begin Patch",
          "*** Delete File: a",
          "  *** End Patch",
          "*** Delete File: b",
          "*** End Patch",
        ].join("\n"),
      ),
    ).toEqual({
      ok: false,
      error: 'Patch line 3: "*** End Patch" must be the last line of the patch.',
    });
    expect(
      parsePatch(["*** Begin Patch", "\t*** Update File:   ", "-x", "*** End Patch"].join("\n")),
    ).toEqual({
      ok: false,
      error: "Patch line 2: Update File needs a path.",
    });
  });

  it("keeps a context line that only looks like a marker when it is none", () => {
    const parsed = parsePatch(
      [
        "*** Begin Patch",
        "*** Update File: notes.md",
        " ***",
        " *** Rename File: x",
        "-a",
        "+b",
        "*** End Patch",
      ].join("\n"),
    );
    expect(parsed).toMatchObject({
      ok: true,
      operations: [
        {
          hunks: [
            {
              lines: [
                { op: " ", text: "***" },
                { op: " ", text: "*** Rename File: x" },
                { op: "-", text: "a" },
                { op: "+", text: "b" },
              ],
            },
          ],
        },
      ],
    });
  });
});
