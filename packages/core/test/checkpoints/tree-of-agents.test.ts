import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isPayload } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { CHECKPOINT_FILE_LIMIT } from "../../src/checkpoints/index.js";
import { RevertBusyError } from "../../src/index.js";
import { collect, MODEL, RETRY_FAST, setup, traceRecords } from "../sdk/fixtures.js";
import { CHILD_MODEL, exec, runSubagent, setup as setupTree, waitFor } from "../subagent/fixtures.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { call, treeOf, writeTree } from "./support.js";

// A subagent's file changes belong to the task that launched it; a file too large to keep is
// reported as not restorable, never silently skipped.

const startTree = cleanedUpAfterEach(setupTree);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const EXTENDED = { tools: { preset: "extended" as const, writeGuard: false } };
const start = cleanedUpAfterEach((script: Parameters<typeof setup>[0]) =>
  setup(script, { config: EXTENDED }),
);

describe("checkpoints across a tree of agents and past the size limit", () => {
  it("a write through a symlink checkpoints the file it points to; a pipe is never read, and not restorable", async () => {
    const env = await start([
      {
        tool_calls: [
          call("c1", "write_file", { file_path: "link.txt", content: "through the link\n" }),
          call("c2", "remove_path", { path: "pipe" }),
        ],
      },
      { text: "Done." },
    ]);
    writeTree(env.workspaceDir, { "real.txt": "real\n" });
    symlinkSync("real.txt", join(env.workspaceDir, "link.txt"));
    execFileSync("mkfifo", [join(env.workspaceDir, "pipe")]);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    await collect(session.run("Write and remove.", { approve: allowAll }));
    expect(readFileSync(join(env.workspaceDir, "real.txt"), "utf8")).toBe("through the link\n");
    expect(existsSync(join(env.workspaceDir, "pipe"))).toBe(false);

    const outcome = await session.revert(1);
    expect(readFileSync(join(env.workspaceDir, "real.txt"), "utf8")).toBe("real\n");
    expect(outcome?.conflicts).toEqual([
      expect.objectContaining({ path: join(env.workspaceDir, "pipe"), reason: "not_restorable" }),
    ]);
    await session.dispose();
  });

  it("reverts a subagent's changes with its parent's task", async () => {
    const env = await start([
      { tool_calls: [call("call_run", "run_subagent", { description: "edit", prompt: "Edit the notes." })] },
      {
        tool_calls: [
          call("c1", "write_file", { file_path: "notes.txt", content: "child wrote this\n" }),
          call("c2", "write_file", { file_path: "child/new.txt", content: "new\n" }),
        ],
      },
      { text: "Edited." },
      { text: "The subagent edited the notes." },
    ]);
    writeTree(env.workspaceDir, { "notes.txt": "original\n" });
    const before = treeOf(env.workspaceDir);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const messages = await collect(session.run("Delegate.", { approve: allowAll }));
    expect(readFileSync(join(env.workspaceDir, "notes.txt"), "utf8")).toBe("child wrote this\n");

    // The parent's task summary lists the child's changes, and the parent's trace holds their checkpoints.
    const summary = messages.find((m) => isPayload(m, "task_changes"));
    expect(summary?.payload).toMatchObject({ change_set: "1" });
    const befores = traceRecords(session.tracePath)
      .filter((m) => isPayload(m, "file_checkpoint"))
      .map((m) => m.payload as { before?: unknown; session_id?: string })
      .filter((p) => p.before !== undefined);
    expect(befores.length).toBeGreaterThan(0);
    const child = session.subagents[0]?.sessionId;
    expect(child).toBeDefined();
    expect(befores.every((p) => p.session_id === child)).toBe(true);

    const outcome = await session.revert(1);
    expect(outcome?.conflicts).toEqual([]);
    expect(treeOf(env.workspaceDir)).toEqual(before);
    await session.dispose();
  });

  it("refuses a revert while a subagent launched by the task still runs in the background", async () => {
    // The child answers from its own fake-llm server: its turns never mix with the parent's.
    const env = await startTree(
      [
        {
          tool_calls: [
            runSubagent("call_run", { prompt: "Edit, then wait.", yield_time_ms: 200, ...CHILD_MODEL }),
          ],
        },
        { text: "The subagent works on in the background." },
      ],
      {
        childScript: [
          {
            tool_calls: [
              call("c1", "write_file", { file_path: "notes.txt", content: "child wrote this\n" }),
              exec("c2", waitFor()),
            ],
          },
          { text: "Edited and waited." },
        ],
      },
    );
    writeTree(env.workspaceDir, { "notes.txt": "original\n" });
    const notes = join(env.workspaceDir, "notes.txt");
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    await collect(session.run("Delegate.", { approve: allowAll }));
    for (let i = 0; i < 500 && readFileSync(notes, "utf8") !== "child wrote this\n"; i++) await pause(20);
    expect(session.subagents[0]?.status).toBe("running");
    const refused = await session.revert(1).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RevertBusyError);
    expect(String(refused)).toContain("has subagents still running (sub_1); revert once they have ended");
    expect(readFileSync(notes, "utf8")).toBe("child wrote this\n");

    env.release();
    for (let i = 0; i < 500 && session.subagents[0]?.status === "running"; i++) await pause(20);
    const outcome = await session.revert(1);
    expect(outcome?.conflicts).toEqual([]);
    expect(readFileSync(notes, "utf8")).toBe("original\n");
    await session.dispose();
  });

  it("records a file over the size limit as not restorable and reports it at the revert", async () => {
    const env = await start([
      { tool_calls: [call("c1", "write_file", { file_path: "big.log", content: "small now\n" })] },
      { text: "Shrunk." },
    ]);
    const big = join(env.workspaceDir, "big.log");
    writeFileSync(big, "");
    truncateSync(big, CHECKPOINT_FILE_LIMIT + 1);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const messages = await collect(session.run("Shrink the log.", { approve: allowAll }));
    const summary = messages.find((m) => isPayload(m, "task_changes"))?.payload as { files: unknown[] };
    expect(summary.files).toEqual([
      expect.objectContaining({ path: big, status: "changed", restorable: false }),
    ]);

    const outcome = await session.revert(1, { force: true });
    expect(outcome?.restored).toEqual([]);
    expect(outcome?.conflicts).toEqual([expect.objectContaining({ path: big, reason: "not_restorable" })]);
    expect(readFileSync(big, "utf8")).toBe("small now\n");
    // Nothing of it reached the store.
    expect(existsSync(join(session.scratchpadDir, "checkpoints", "blobs"))).toBe(true);
    await session.dispose();
  });
});
