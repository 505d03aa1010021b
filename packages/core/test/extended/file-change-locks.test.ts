import { existsSync, readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type OmniMessage, toolCall } from "@penguin/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Environment } from "../../src/environment/environment.js";
import { createApplyPatchTool } from "../../src/tools/extended/apply-patch/apply-patch.js";
import { createMovePathTool } from "../../src/tools/extended/move-path.js";
import { inspect, testTool } from "../environment/support.js";
import { definitionsOf, extendedEnvironment, type TempDirs, workspace } from "./support.js";

// "File-changing calls on the same path run one after another in call order, never
// interleaved", for the tools that change several paths at once: apply_patch (every file it
// names) and move_path (its source and its destination).

let dirs: TempDirs;
let ws: string;
beforeEach(async () => {
  dirs = await workspace();
  ws = dirs.workspaceDir;
});
afterEach(async () => {
  await dirs.cleanup();
});

const read = (name: string) => readFile(join(ws, name), "utf8");
const def = (name: string) => definitionsOf().find((d) => d.name === name)!;
const patch = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n");

/** What a probe saw of each file when its body ran (`null`: the file did not exist). */
type Seen = Record<string, string | null>;

/**
 * A witness: it locks `args.lock` like a file-changing tool and records the content of `args.read`
 * the moment its body starts. It reads synchronously, so what it sees is the state when it was let in: a
 * probe that is not held back runs before any file-system call of an earlier tool has finished.
 */
function probeTool(seen: Seen[]) {
  return testTool(
    async function* (args, ctx) {
      const paths = (args.read as string[]).map((path) => join(ctx.workspaceDir, path));
      const state: Seen = {};
      for (const path of paths) {
        state[path.slice(ws.length + 1)] = existsSync(path) ? readFileSync(path, "utf8") : null;
      }
      seen.push(state);
      yield* [];
      return {};
    },
    { name: "probe", permission: "r" },
    { lockKeys: (args, workspaceDir) => (args.lock as string[]).map((path) => join(workspaceDir, path)) },
  );
}

/** Starts the calls in call order (as the engine does), then runs them all concurrently. */
async function runTogether(env: Environment, calls: { name: string; args: Record<string, unknown> }[]) {
  const runs = calls.map((c, i) => env.executeTool(toolCall(c.name, c.args, `c${i + 1}`)));
  const firsts = await Promise.all(runs.map((run) => run.next()));
  return Promise.all(
    runs.map(async (run, i) => {
      const messages: OmniMessage[] = [firsts[i]!.value as OmniMessage];
      for await (const message of run) messages.push(message);
      return inspect(messages, `c${i + 1}`).complete;
    }),
  );
}

const twoFilePatch = patch(
  "*** Update File: a.txt",
  "@@",
  "-one",
  "+ONE",
  "*** Update File: b.txt",
  "@@",
  "-two",
  "+TWO",
);

describe("apply_patch holds every file it names", () => {
  it("a later call on the patch's second file waits until the whole patch is written", async () => {
    await writeFile(join(ws, "a.txt"), "one\n");
    await writeFile(join(ws, "b.txt"), "two\n");
    const seen: Seen[] = [];
    const env = extendedEnvironment(dirs);
    env.addTools([probeTool(seen)]);
    const [patched, probed] = await runTogether(env, [
      { name: "apply_patch", args: { patch: twoFilePatch } },
      { name: "probe", args: { lock: ["b.txt"], read: ["b.txt", "a.txt"] } },
    ]);
    expect(patched.stop_reason).toBe("completed");
    expect(probed.stop_reason).toBe("completed");
    expect(seen).toEqual([{ "b.txt": "TWO\n", "a.txt": "ONE\n" }]);
  });

  it("a patch over two files and a write_file of the second run one after the other in call order", async () => {
    await writeFile(join(ws, "a.txt"), "one\n");
    await writeFile(join(ws, "b.txt"), "two\n");
    const seen: Seen[] = [];
    const env = extendedEnvironment(dirs);
    env.addTools([probeTool(seen)]);
    const [patched, written, probed] = await runTogether(env, [
      { name: "apply_patch", args: { patch: twoFilePatch } },
      { name: "write_file", args: { file_path: "b.txt", content: "written\n" } },
      { name: "probe", args: { lock: ["b.txt"], read: ["a.txt", "b.txt"] } },
    ]);
    // Had the write come first, the patch would find no "two" in b.txt and fail; had they
    // interleaved, b.txt could end up patched instead of written.
    expect(patched.stop_reason).toBe("completed");
    expect(patched.output).toContain("M ");
    expect(written.stop_reason).toBe("completed");
    expect(probed.stop_reason).toBe("completed");
    expect(await read("a.txt")).toBe("ONE\n");
    expect(await read("b.txt")).toBe("written\n");
    expect(seen).toEqual([{ "a.txt": "ONE\n", "b.txt": "written\n" }]);
  });

  it("locks update, add and delete targets and move destinations, each once", () => {
    const tool = createApplyPatchTool(def("apply_patch"));
    const text = patch(
      "*** Add File: new.txt",
      "+fresh",
      "*** Delete File: old.txt",
      "*** Update File: src/a.ts",
      "*** Move to: lib/a.ts",
      "@@",
      "-x",
      "+y",
      "*** Update File: ./src/b.ts",
      "@@",
      "-p",
      "+q",
    );
    expect(tool.lockKeys?.({ patch: text }, ws)).toEqual(
      ["new.txt", "old.txt", "src/a.ts", "lib/a.ts", "src/b.ts"].map((path) => join(ws, path)),
    );
    // A patch that does not parse changes nothing, so it waits for nothing.
    expect(tool.lockKeys?.({ patch: "not a patch" }, ws)).toEqual([]);
  });
});

describe("move_path holds its source and its destination", () => {
  it("a later call on the destination waits until the move is done", async () => {
    await writeFile(join(ws, "src.txt"), "moved content\n");
    const seen: Seen[] = [];
    const env = extendedEnvironment(dirs);
    env.addTools([probeTool(seen)]);
    const [moved] = await runTogether(env, [
      { name: "move_path", args: { source: "src.txt", destination: "sub/dest.txt" } },
      { name: "probe", args: { lock: ["sub/dest.txt"], read: ["sub/dest.txt", "src.txt"] } },
    ]);
    expect(moved.stop_reason).toBe("completed");
    expect(seen).toEqual([{ "sub/dest.txt": "moved content\n", "src.txt": null }]);
  });

  it("a move onto a path an earlier write_file is creating waits for it, then refuses to overwrite", async () => {
    await writeFile(join(ws, "src.txt"), "source\n");
    const env = extendedEnvironment(dirs);
    const [written, moved] = await runTogether(env, [
      { name: "write_file", args: { file_path: "dest.txt", content: "created\n" } },
      { name: "move_path", args: { source: "src.txt", destination: "dest.txt" } },
    ]);
    expect(written.stop_reason).toBe("completed");
    expect(moved.stop_reason).toBe("failed");
    expect(moved.output).toContain("already exists; move_path never overwrites");
    expect(await read("dest.txt")).toBe("created\n");
    expect(await read("src.txt")).toBe("source\n");
  });

  it("locks both paths, resolved against the current directory", () => {
    const tool = createMovePathTool(def("move_path"));
    expect(tool.lockKeys?.({ source: "a.txt", destination: "../b.txt" }, join(ws, "sub"))).toEqual([
      join(ws, "sub/a.txt"),
      join(ws, "b.txt"),
    ]);
  });
});
