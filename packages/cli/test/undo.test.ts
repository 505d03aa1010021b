import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { fakeOpenAiPerTest, penguin, tempDir } from "./helpers.js";

// `penguin undo` reverts a task of a real session (run by `penguin run` against fake-llm) from
// its checkpoints, offline: no model is needed.

const API_KEY = "sk-test-penguin-undo-0123456789abcdef";

describe("penguin undo", () => {
  const start = fakeOpenAiPerTest(API_KEY);

  test("reverts the last task, reports a conflict after an outside edit, and --force overwrites it", async () => {
    const { env } = await start([
      {
        tool_calls: [
          { name: "write_file", arguments: { file_path: "a.txt", content: "two\n" } },
          { name: "write_file", arguments: { file_path: "b.txt", content: "new\n" } },
        ],
      },
      { text: "Changed." },
    ]);
    const ws = tempDir("ws");
    writeFileSync(join(ws, "a.txt"), "one\n");
    const run = await penguin(["run", "--model", "openai/fake-model", "-w", ws, "-m", "change"], { env });
    expect(run.exitCode).toBe(0);
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("two\n");
    // The run names what the task changed, and how to take it back.
    expect(run.stderr).toContain(`${join(ws, "a.txt")} +1/\u22121`);
    expect(run.stderr).toContain(`${join(ws, "b.txt")} added +1/\u22120`);
    expect(run.stderr).toContain("(penguin undo reverts them)");

    const dry = await penguin(["undo", "--dry-run"], { env });
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toMatch(/Would revert task 1 of session \S+: 2 path\(s\)/);
    expect(dry.stderr).toContain("changes made by commands are not tracked");
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("two\n");

    const undo = await penguin(["undo"], { env });
    expect(undo.exitCode).toBe(0);
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("one\n");
    expect(existsSync(join(ws, "b.txt"))).toBe(false);
    expect(undo.stdout).toContain("--task undo-1");

    // The revert can be undone; a file edited since is a conflict, left alone unless --force.
    writeFileSync(join(ws, "a.txt"), "by hand\n");
    const redo = await penguin(["undo", "--task", "undo-1", "--json"], { env });
    expect(redo.exitCode).toBe(1);
    const outcome = JSON.parse(redo.stdout) as {
      reverted: string;
      change_set: string;
      conflicts: { path: string; reason: string }[];
      restored: string[];
    };
    expect(outcome).toMatchObject({ reverted: "undo-1", change_set: "undo-2", dry_run: false });
    expect(outcome.conflicts).toEqual([
      expect.objectContaining({ path: join(ws, "a.txt"), reason: "changed_since" }),
    ]);
    expect(outcome.restored).toEqual([join(ws, "b.txt")]);
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("by hand\n");
    expect(readFileSync(join(ws, "b.txt"), "utf8")).toBe("new\n");

    const forced = await penguin(["undo", "--task", "undo-1", "--force"], { env });
    expect(forced.exitCode).toBe(0);
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("two\n");

    const unknown = await penguin(["undo", "--task", "7"], { env });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain("has no file changes of 7");
  });
});
