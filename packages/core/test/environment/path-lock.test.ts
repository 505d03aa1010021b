import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type OmniMessage, partialToolCallOutput, toolCall } from "@penguin/protocol";
import { DEFAULT_TOOL_DEFINITIONS } from "@penguin/state";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Environment } from "../../src/environment/environment.js";
import { KeyedLock } from "../../src/environment/path-lock.js";
import { createEditFileTool } from "../../src/tools/edit-file/edit-file.js";
import { createWriteFileTool } from "../../src/tools/write-file/write-file.js";
import { inspect, makeEnvironment, sleep, type TempDirs, tempDirs, testTool } from "./support.js";

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await tempDirs();
  await mkdir(dirs.workspaceDir, { recursive: true });
});
afterEach(async () => {
  await dirs.cleanup();
});

const def = (name: string) => DEFAULT_TOOL_DEFINITIONS.find((d) => d.name === name)!;

/** Starts the calls in order (as the engine does), then drains them all concurrently. */
async function runTogether(
  env: Environment,
  calls: { name: string; args: Record<string, unknown>; id: string }[],
) {
  const runs = calls.map((c) => env.executeTool(toolCall(c.name, c.args, c.id)));
  const firsts = await Promise.all(runs.map((run) => run.next()));
  return Promise.all(
    runs.map(async (run, i) => {
      const messages: OmniMessage[] = [firsts[i].value as OmniMessage];
      for await (const m of run) messages.push(m);
      return inspect(messages, calls[i].id);
    }),
  );
}

describe("file-changing calls on the same path run one after another in call order", () => {
  it("two edit_file calls on one file started together apply in call order", async () => {
    const file = join(dirs.workspaceDir, "notes.txt");
    await writeFile(file, "step one\n");
    const env = makeEnvironment(dirs, [createEditFileTool(def("edit_file"))]);
    const [first, second] = await runTogether(env, [
      { name: "edit_file", args: { file_path: "notes.txt", old_string: "one", new_string: "two" }, id: "e1" },
      { name: "edit_file", args: { file_path: file, old_string: "two", new_string: "three" }, id: "e2" },
    ]);
    expect(first.complete.stop_reason).toBe("completed");
    expect(second.complete.stop_reason).toBe("completed");
    expect(await readFile(file, "utf8")).toBe("step three\n");
  });

  it("a write_file and an edit_file on one path never interleave", async () => {
    const env = makeEnvironment(dirs, [
      createWriteFileTool(def("write_file")),
      createEditFileTool(def("edit_file")),
    ]);
    const [, edit] = await runTogether(env, [
      { name: "write_file", args: { file_path: "new/dir/a.txt", content: "alpha\n" }, id: "w1" },
      {
        name: "edit_file",
        args: { file_path: "new/dir/a.txt", old_string: "alpha", new_string: "beta" },
        id: "e1",
      },
    ]);
    expect(edit.complete.stop_reason).toBe("completed");
    expect(await readFile(join(dirs.workspaceDir, "new/dir/a.txt"), "utf8")).toBe("beta\n");
  });

  it("holds a slow holder's followers until it finishes, and lets other paths run meanwhile", async () => {
    const events: string[] = [];
    const slowWriter = testTool(
      async function* (args, ctx) {
        events.push(`start ${args.tag}`);
        yield partialToolCallOutput("delta", ctx.toolCallId, String(args.tag));
        await sleep(Number(args.ms));
        events.push(`end ${args.tag}`);
        return {};
      },
      { name: "slow", permission: "rw" },
      { lockKeys: (args, workspace) => [join(workspace, String(args.path))] },
    );
    const env = makeEnvironment(dirs, [slowWriter]);
    await runTogether(env, [
      { name: "slow", args: { path: "a", tag: "a1", ms: 60 }, id: "c1" },
      { name: "slow", args: { path: "b", tag: "b1", ms: 10 }, id: "c2" },
      { name: "slow", args: { path: "a", tag: "a2", ms: 0 }, id: "c3" },
    ]);
    expect(events.indexOf("end a1")).toBeLessThan(events.indexOf("start a2"));
    // The call on another path did not wait for the first one.
    expect(events.indexOf("start b1")).toBeLessThan(events.indexOf("end a1"));
  });

  it("an interrupted waiter gives up its turn without blocking the calls behind it", async () => {
    const lock = new KeyedLock();
    const order: string[] = [];
    const releaseFirst = await lock.acquire("/x");
    const second = lock.acquire("/x");
    const third = lock.acquire("/x").then((release) => {
      order.push("third");
      release();
    });
    // The second waiter was interrupted: it releases as soon as its turn comes.
    void second.then((release) => {
      order.push("second");
      release();
    });
    releaseFirst();
    await third;
    expect(order).toEqual(["second", "third"]);
    await sleep(0);
    expect(lock.size).toBe(0);
  });
});
