import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_DEPTH_WITHOUT_RECURSIVE_NOTE } from "../../src/tools/extended/list-files.js";
import { extendedEnvironment, runCall, type TempDirs, workspace } from "./support.js";

// max_depth only means something with recursive: given alone, the listing says it was not used
// instead of ignoring it without a word.

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await workspace();
  await mkdir(join(dirs.workspaceDir, "a", "b"), { recursive: true });
  await writeFile(join(dirs.workspaceDir, "a", "b", "deep.txt"), "x");
});
afterEach(async () => {
  await dirs.cleanup();
});

const list = async (args: Record<string, unknown>) =>
  (await runCall(extendedEnvironment(dirs), "list_files", args)).complete;

describe("list_files max_depth", () => {
  it("without recursive lists one level and says that max_depth applies only with recursive", async () => {
    const out = await list({ max_depth: 3 });
    expect(out.stop_reason).toBe("completed");
    const lines = out.output.split("\n");
    expect(lines[0]).toBe(`${dirs.workspaceDir}:`);
    expect(lines[1]).toBe(MAX_DEPTH_WITHOUT_RECURSIVE_NOTE);
    expect(MAX_DEPTH_WITHOUT_RECURSIVE_NOTE).toContain("recursive: true");
    expect(out.output).not.toContain("deep.txt");
  });

  it("with recursive: false and max_depth says so too", async () => {
    const out = await list({ recursive: false, max_depth: 2 });
    expect(out.output.split("\n")[1]).toBe(MAX_DEPTH_WITHOUT_RECURSIVE_NOTE);
  });

  it("has no note when it is used (with recursive) or not given", async () => {
    const deep = await list({ recursive: true, max_depth: 3 });
    expect(deep.output).toContain("a/b/deep.txt");
    expect(deep.output).not.toContain(MAX_DEPTH_WITHOUT_RECURSIVE_NOTE);
    expect((await list({})).output).not.toContain(MAX_DEPTH_WITHOUT_RECURSIVE_NOTE);
  });
});
