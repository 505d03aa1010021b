import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
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

  // git runs with a temp HOME and no system config: the machine's git configuration plays no part.
  const gitEnv = (home: string) => ({
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    GIT_CONFIG_NOSYSTEM: "1",
    // A temp folder is never taken for part of a repository above it.
    GIT_CEILING_DIRECTORIES: tmpdir(),
    GIT_AUTHOR_NAME: "Test",
    GIT_AUTHOR_EMAIL: "test@example.com",
    GIT_COMMITTER_NAME: "Test",
    GIT_COMMITTER_EMAIL: "test@example.com",
  });
  const script = [
    {
      tool_calls: [
        {
          name: "exec_command",
          arguments: { description: "edit", cmd: "echo x > made.txt; sed -i 's/one/ONE/' tracked.txt" },
        },
      ],
    },
    { tool_calls: [{ name: "write_file", arguments: { file_path: "tool.txt", content: "by the tool\n" } }] },
    { text: "Changed." },
  ];

  test("names what commands changed as not undoable, and leaves it alone on undo", async () => {
    const started = await start(script);
    const env = { ...started.env, ...gitEnv(tempDir("home")) };
    const ws = tempDir("ws");
    writeFileSync(join(ws, "tracked.txt"), "one\n");
    for (const args of [
      ["init", "-q"],
      ["add", "-A"],
      ["commit", "-q", "-m", "start"],
    ])
      execFileSync("git", args, { cwd: ws, env: { ...process.env, ...env } });
    const run = await penguin(["run", "--model", "openai/fake-model", "-w", ws, "-m", "change"], { env });
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain(`${join(ws, "tool.txt")} added +1/\u22120 (penguin undo reverts them)`);
    expect(run.stderr).toContain(
      `changed by commands (not undoable): ${join(ws, "made.txt")} added, ${join(ws, "tracked.txt")}`,
    );

    const dry = await penguin(["undo", "--dry-run"], { env });
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toMatch(/Would revert task 1 of session \S+: 1 path\(s\)/);
    expect(dry.stdout).toContain("changed by commands (not undoable):");
    expect(dry.stderr).toContain("files commands changed are left as they are");

    const undo = await penguin(["undo", "--json"], { env });
    expect(undo.exitCode).toBe(0);
    expect(JSON.parse(undo.stdout)).toMatchObject({
      restored: [join(ws, "tool.txt")],
      commands: {
        tracked: "git",
        files: [
          { path: join(ws, "made.txt"), status: "added" },
          { path: join(ws, "tracked.txt"), status: "changed" },
        ],
      },
    });
    expect(existsSync(join(ws, "tool.txt"))).toBe(false);
    expect(readFileSync(join(ws, "tracked.txt"), "utf8")).toBe("ONE\n");
    expect(readFileSync(join(ws, "made.txt"), "utf8")).toBe("x\n");
  });

  test("outside git it says plainly that commands' changes are not tracked", async () => {
    const started = await start(script);
    const env = { ...started.env, ...gitEnv(tempDir("home")) };
    const ws = tempDir("ws");
    writeFileSync(join(ws, "tracked.txt"), "one\n");
    const run = await penguin(["run", "--model", "openai/fake-model", "-w", ws, "-m", "change"], { env });
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain("commands' changes are not tracked (the workspace is not a git repository)");
    const dry = await penguin(["undo", "--dry-run"], { env });
    expect(dry.stdout).toContain("commands' changes are not tracked (the workspace is not a git repository)");
  });
});
