import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { extendedEnvironment, runCall, type TempDirs, workspace } from "./support.js";

// apply_patch on CRLF, lone-CR, mixed and byte-order-marked files: hunks are written with "\n"
// lines as read_file shows them, and every file comes out in its own line endings, byte for byte.

let dirs: TempDirs;
let ws: string;
beforeEach(async () => {
  dirs = await workspace();
  ws = dirs.workspaceDir;
});
afterEach(async () => {
  await dirs.cleanup();
});

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const patch = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n");
async function apply(text: string, writeGuard = false) {
  const env = extendedEnvironment(dirs, { writeGuard });
  return (await runCall(env, "apply_patch", { patch: text })).complete;
}
const bytes = (name: string) => readFile(join(ws, name));

describe("apply_patch and line endings", () => {
  it("matches the first line of a file with a byte order mark and keeps the mark and CRLF", async () => {
    await writeFile(join(ws, "a.txt"), Buffer.concat([BOM, Buffer.from("first\r\nsecond\r\n")]));
    const out = await apply(patch("*** Update File: a.txt", "@@", " first", "-second", "+SECOND", "+third"));
    expect(out.stop_reason).toBe("completed");
    expect(await bytes("a.txt")).toEqual(Buffer.concat([BOM, Buffer.from("first\r\nSECOND\r\nthird\r\n")]));
  });

  it("finds an @@ line on the first line of a file with a byte order mark", async () => {
    await writeFile(join(ws, "a.txt"), Buffer.concat([BOM, Buffer.from("[section]\nkey = 1\n")]));
    const out = await apply(patch("*** Update File: a.txt", "@@ [section]", "-key = 1", "+key = 2"));
    expect(out.stop_reason).toBe("completed");
    expect(await bytes("a.txt")).toEqual(Buffer.concat([BOM, Buffer.from("[section]\nkey = 2\n")]));
  });

  it("patches a lone-CR file line by line and writes its new lines with CR", async () => {
    await writeFile(join(ws, "mac.txt"), "one\rtwo\rthree\r");
    const out = await apply(
      patch("*** Update File: mac.txt", "@@", " one", "-two", "+TWO", "+two and a half"),
    );
    expect(out.stop_reason).toBe("completed");
    expect(await bytes("mac.txt")).toEqual(Buffer.from("one\rTWO\rtwo and a half\rthree\r"));
  });

  it("keeps each untouched line's own ending in a mixed file", async () => {
    await writeFile(join(ws, "mixed.txt"), "one\ntwo\r\nthree\nfour\n");
    const out = await apply(patch("*** Update File: mixed.txt", "@@", "-three", "+THREE"));
    expect(out.stop_reason).toBe("completed");
    expect(await bytes("mixed.txt")).toEqual(Buffer.from("one\ntwo\r\nTHREE\nfour\n"));
  });

  it("writes added lines with the ending of the lines they replace in a mixed file", async () => {
    await writeFile(join(ws, "mixed.txt"), "a\nb\nc\r\nd\r\ne\n");
    const out = await apply(
      patch("*** Update File: mixed.txt", "@@", " b", "-c", "-d", "+C", "+D", "+D2", " e"),
    );
    expect(out.stop_reason).toBe("completed");
    expect(await bytes("mixed.txt")).toEqual(Buffer.from("a\nb\nC\r\nD\r\nD2\r\ne\n"));
  });

  it("adds lines after the last line of a CRLF file that has no final line break", async () => {
    await writeFile(join(ws, "a.txt"), "x\r\ny");
    const out = await apply(patch("*** Update File: a.txt", "@@", " y", "+z", "*** End of File"));
    expect(out.stop_reason).toBe("completed");
    expect(await bytes("a.txt")).toEqual(Buffer.from("x\r\ny\r\nz"));
  });

  it("applies a patch sent with CRLF line breaks to an LF file without adding any CR", async () => {
    await writeFile(join(ws, "a.txt"), "a\nb\n");
    const out = await apply(patch("*** Update File: a.txt", " a", "-b", "+B").replace(/\n/g, "\r\n"));
    expect(out.stop_reason).toBe("completed");
    expect(await bytes("a.txt")).toEqual(Buffer.from("a\nB\n"));
  });

  it("reports the hash of the bytes written, mark and CRLF included, under the write guard", async () => {
    await writeFile(join(ws, "a.txt"), Buffer.concat([BOM, Buffer.from("k = 1\r\n")]));
    const env = extendedEnvironment(dirs, { writeGuard: true });
    await runCall(env, "read_file", { file_path: "a.txt" });
    const out = (
      await runCall(env, "apply_patch", { patch: patch("*** Update File: a.txt", "-k = 1", "+k = 2") })
    ).complete;
    expect(out.stop_reason).toBe("completed");
    const written = await bytes("a.txt");
    expect(written).toEqual(Buffer.concat([BOM, Buffer.from("k = 2\r\n")]));
    expect(out.output).toContain(`[sha256: ${createHash("sha256").update(written).digest("hex")}`);
  });
});
