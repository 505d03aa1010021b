import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { isPayload, type OmniMessage } from "@penguin/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { openSessionChanges } from "../../src/checkpoints/index.js";
import { collect, MODEL, RETRY_FAST, setup, traceRecords } from "../sdk/fixtures.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { call, writeTree } from "./support.js";

// Files changed by commands, which no checkpoint covers: with real git, real commands run by
// exec_command and a real session over fake-llm, a task's end lists what its commands changed as
// not undoable, and a revert leaves those files alone and says so.

const EXTENDED = { tools: { preset: "extended" as const, writeGuard: false } };
const start = cleanedUpAfterEach((script: Parameters<typeof setup>[0]) =>
  setup(script, { config: EXTENDED }),
);
type Env = Awaited<ReturnType<typeof setup>>;

// git here never reads the machine's configuration: a temp HOME, no system config. Every git the
// session runs goes through a wrapper on PATH that logs it, so a test can tell none ran.
const saved = { ...process.env };
let home = "";
let gitLog = "";
let realGit = "";
beforeAll(() => {
  realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  home = mkdtempSync(join(tmpdir(), "penguin-git-home-"));
  const bin = join(home, "bin");
  mkdirSync(bin);
  gitLog = join(home, "git.log");
  writeFileSync(join(bin, "git"), `#!/bin/sh\necho "$*" >> '${gitLog}'\nexec '${realGit}' "$@"\n`);
  chmodSync(join(bin, "git"), 0o755);
  Object.assign(process.env, {
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CEILING_DIRECTORIES: tmpdir(),
    PATH: `${bin}${delimiter}${process.env.PATH ?? ""}`,
  });
});
afterAll(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
  rmSync(home, { recursive: true, force: true });
});

const IDENTITY = {
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.com",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.com",
};
const git = (cwd: string, ...args: string[]) =>
  execFileSync(realGit, args, { cwd, env: { ...process.env, ...IDENTITY }, encoding: "utf8" });

function repo(env: Env, files: Record<string, string>, commit = true) {
  git(env.workspaceDir, "init", "-q");
  writeTree(env.workspaceDir, files);
  if (!commit) return;
  git(env.workspaceDir, "add", "-A");
  git(env.workspaceDir, "commit", "-q", "-m", "start");
}

const session = (env: Env) =>
  env.agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL, retry: RETRY_FAST });

const payloads = (messages: readonly OmniMessage[], type: string) =>
  messages.filter((m) => isPayload(m, type)).map((m) => m.payload as Record<string, unknown>);

const exec = (id: string, cmd: string) => call(id, "exec_command", { description: "change files", cmd });

const gitRuns = () => (existsSync(gitLog) ? readFileSync(gitLog, "utf8").split("\n").filter(Boolean) : []);

const COMMAND =
  "echo x > made.txt; sed -i 's/one/ONE/' tracked.txt; git mv old.txt renamed.txt; " +
  "printf s > 'with space.txt'; printf n > \"$(printf 'new\\nline.txt')\"";

describe("files changed by commands", () => {
  it("a git workspace where a command changed files (listed as not undoable)", async () => {
    const env = await start([
      { tool_calls: [exec("c1", COMMAND)] },
      { tool_calls: [call("c2", "write_file", { file_path: "tool.txt", content: "by the tool\n" })] },
      { text: "Done." },
    ]);
    repo(env, { "tracked.txt": "one\n", "tool.txt": "before\n", "old.txt": "old\n" });
    const s = await session(env);
    const messages = await collect(s.run("Change things.", { approve: allowAll }));
    const at = (name: string) => join(env.workspaceDir, name);
    const expected = {
      tracked: "git",
      files: [
        { path: at("made.txt"), status: "added" },
        { path: at("new\nline.txt"), status: "added" },
        { path: at("old.txt"), status: "removed" },
        { path: at("renamed.txt"), status: "added" },
        { path: at("tracked.txt"), status: "changed" },
        { path: at("with space.txt"), status: "added" },
      ].sort((a, b) => (a.path < b.path ? -1 : 1)),
    };
    const [event] = payloads(messages, "task_changes");
    // The tool's file is the tool's (undoable), never the commands'.
    expect(((event?.files ?? []) as { path: string }[]).map((f) => f.path)).toEqual([at("tool.txt")]);
    expect(event?.commands).toEqual(expected);
    expect(payloads(traceRecords(s.tracePath), "task_changes")[0]?.commands).toEqual(expected);
    expect((await s.changes(1))?.commands).toEqual(expected);

    const outcome = await s.revert(1);
    expect(outcome?.restored).toEqual([at("tool.txt")]);
    expect(outcome?.commands).toEqual(expected);
    expect(readFileSync(at("tool.txt"), "utf8")).toBe("before\n");
    // What commands changed stays as they left it.
    expect(readFileSync(at("tracked.txt"), "utf8")).toBe("ONE\n");
    expect(readFileSync(at("made.txt"), "utf8")).toBe("x\n");
    expect(existsSync(at("renamed.txt"))).toBe(true);
    await s.dispose();

    // Read back offline, from the trace alone.
    const offline = openSessionChanges(env.dataRoot, s.id);
    try {
      expect(offline.knows(1)).toBe(true);
      expect((await offline.changes(1))?.commands).toEqual(expected);
    } finally {
      offline.close();
    }
  });

  it("a task whose commands alone changed files still gets its summary; a repo without commits works", async () => {
    const env = await start([
      { tool_calls: [exec("c1", "echo x > made.txt; rm staged.txt")] },
      { text: "Done." },
    ]);
    repo(env, { "staged.txt": "s\n" }, false);
    git(env.workspaceDir, "add", "staged.txt");
    const s = await session(env);
    const messages = await collect(s.run("Make a file.", { approve: allowAll }));
    const [event] = payloads(messages, "task_changes");
    expect(event).toMatchObject({ change_set: "1", files: [] });
    expect(event?.commands).toEqual({
      tracked: "git",
      files: [
        { path: join(env.workspaceDir, "made.txt"), status: "added" },
        { path: join(env.workspaceDir, "staged.txt"), status: "removed" },
      ],
    });
    await s.dispose();
    const offline = openSessionChanges(env.dataRoot, s.id);
    try {
      expect(offline.knows(1)).toBe(true);
      const revert = await offline.revert(1);
      expect(revert).toMatchObject({ restored: [], commands: event?.commands });
    } finally {
      offline.close();
    }
  });

  it("outside git the summary says command changes are not tracked", async () => {
    const env = await start([
      { tool_calls: [exec("c1", "echo x > made.txt")] },
      { tool_calls: [call("c2", "write_file", { file_path: "tool.txt", content: "t\n" })] },
      { text: "Done." },
    ]);
    const s = await session(env);
    const messages = await collect(s.run("Change things.", { approve: allowAll }));
    const [event] = payloads(messages, "task_changes");
    expect(event?.commands).toEqual({ tracked: "none", reason: "the workspace is not a git repository" });
    expect((await s.changes(1))?.commands).toEqual(event?.commands);
    await s.dispose();
  });

  it("a task that ran no command carries no commands field and runs no git", async () => {
    const env = await start([
      { tool_calls: [call("c1", "write_file", { file_path: "tool.txt", content: "t\n" })] },
      { text: "Done." },
      { tool_calls: [exec("c2", "echo x > made.txt")] },
      { text: "Done." },
    ]);
    repo(env, { "a.txt": "a\n" });
    rmSync(gitLog, { force: true });
    const s = await session(env);
    const first = await collect(s.run("Write a file.", { approve: allowAll }));
    const [event] = payloads(first, "task_changes");
    expect(event?.files).toHaveLength(1);
    expect(event && "commands" in event).toBe(false);
    expect(gitRuns()).toEqual([]);
    // The wrapper is on the path git is found on: a task with a command does run it.
    const second = await collect(s.run("Run a command.", { approve: allowAll }));
    expect(payloads(second, "task_changes")[0]?.commands).toEqual({
      tracked: "git",
      files: [{ path: join(env.workspaceDir, "made.txt"), status: "added" }],
    });
    expect(gitRuns().some((line) => line.includes("status --porcelain=v1 -z"))).toBe(true);
    await s.dispose();
  });

  it("a subagent's command is watched from before it starts, for the task that launched it", async () => {
    const env = await start([
      { tool_calls: [call("call_run", "run_subagent", { description: "edit", prompt: "Run it." })] },
      { tool_calls: [exec("c1", "echo child > child.txt")] },
      { text: "Ran." },
      { text: "The subagent ran it." },
    ]);
    repo(env, { "a.txt": "a\n" });
    const s = await session(env);
    const messages = await collect(s.run("Delegate.", { approve: allowAll }));
    const [event] = payloads(messages, "task_changes");
    expect(event).toMatchObject({
      change_set: "1",
      files: [],
      commands: { tracked: "git", files: [{ path: join(env.workspaceDir, "child.txt"), status: "added" }] },
    });
    await s.dispose();
  });

  it("a file a command committed is seen though it is clean at the task's end", async () => {
    const env = await start([
      {
        tool_calls: [
          exec("c1", "echo c > c.txt && echo more >> a.txt && git add -A && git commit -q -m 'by a command'"),
        ],
      },
      { text: "Committed." },
    ]);
    repo(env, { "a.txt": "a\n" });
    git(env.workspaceDir, "config", "user.name", "Test");
    git(env.workspaceDir, "config", "user.email", "test@example.com");
    const s = await session(env);
    const messages = await collect(s.run("Commit.", { approve: allowAll }));
    expect(git(env.workspaceDir, "status", "--porcelain")).toBe("");
    expect(payloads(messages, "task_changes")[0]?.commands).toEqual({
      tracked: "git",
      files: [
        { path: join(env.workspaceDir, "a.txt"), status: "changed" },
        { path: join(env.workspaceDir, "c.txt"), status: "added" },
      ],
    });
    await s.dispose();
  });

  it("input sent to a command left running by an earlier task is watched too", async () => {
    const env = await start([
      {
        tool_calls: [
          call("c1", "exec_command", {
            description: "wait for a line",
            cmd: 'read line; echo "$line" > got.txt',
            yield_time_ms: 200,
          }),
        ],
      },
      { text: "Waiting." },
      {
        tool_calls: [
          call("c2", "input_command", {
            description: "send a line",
            process_id: "cmd_1",
            chars: "hi\n",
            yield_time_ms: 2000,
          }),
        ],
      },
      { text: "Sent." },
    ]);
    repo(env, { "a.txt": "a\n" });
    const s = await session(env);
    const first = await collect(s.run("Start it.", { approve: allowAll }));
    // Nothing changed yet: the command waits for its line.
    expect(payloads(first, "task_changes")).toEqual([]);
    const second = await collect(s.run("Send it a line.", { approve: allowAll }));
    expect(readFileSync(join(env.workspaceDir, "got.txt"), "utf8")).toBe("hi\n");
    expect(payloads(second, "task_changes")[0]).toMatchObject({
      change_set: "2",
      commands: { tracked: "git", files: [{ path: join(env.workspaceDir, "got.txt"), status: "added" }] },
    });
    await s.dispose();
  });
});
