import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSessionChanges, SessionHeldError } from "../../src/index.js";
import { spawnSession } from "../resume/session-process.js";
import { setup } from "../sdk/fixtures.js";
import { call, treeOf, writeTree } from "./support.js";

// The checkpoints survive a crash: a session process killed (SIGKILL) in the middle of a task,
// resumed in this process, reverts the changes the killed task made.

const EXTENDED = { tools: { preset: "extended" as const, writeGuard: false } };

type Env = Awaited<ReturnType<typeof setup>>;
const envs: Env[] = [];
const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await Promise.all(envs.splice(0).map((e) => e.cleanup()));
});

/** A session process that changed files in its task and now waits in a command, and its id. */
async function changedAndWaiting(env: Env) {
  const run = spawnSession(env, "Change and wait.", cleanups, EXTENDED);
  const { session_id: sessionId } = (await run.waitFor((line) => "session_id" in line)) as {
    session_id: string;
  };
  await run.waitFor(
    (line) =>
      (line.payload as { type?: string })?.type === "tool_call" && JSON.stringify(line).includes('"c3"'),
  );
  return { run, sessionId };
}

async function start() {
  const env = await setup(
    [
      {
        tool_calls: [
          call("c1", "edit_file", { file_path: "a.txt", old_string: "one", new_string: "ONE" }),
          call("c2", "write_file", { file_path: "made/b.txt", content: "b\n" }),
        ],
      },
      { tool_calls: [call("c3", "exec_command", { description: "wait", cmd: "sleep 60" })] },
    ],
    { config: EXTENDED },
  );
  envs.push(env);
  writeTree(env.workspaceDir, { "a.txt": "one\ntwo\n" });
  return env;
}

describe("checkpoints survive a killed session", () => {
  it("SIGKILL mid-task, then resume, then revert: the files are as before the task", async () => {
    const env = await start();
    const before = treeOf(env.workspaceDir);
    const { run, sessionId } = await changedAndWaiting(env);
    await run.kill();
    expect(readFileSync(join(env.workspaceDir, "a.txt"), "utf8")).toBe("ONE\ntwo\n");

    const resumed = await env.agent.resumeSession(sessionId);
    const changes = await resumed.changes();
    expect(changes?.changeSet).toBe("1");
    expect(changes?.files.map((f) => f.path).sort()).toEqual(
      [
        join(env.workspaceDir, "a.txt"),
        join(env.workspaceDir, "made"),
        join(env.workspaceDir, "made/b.txt"),
      ].sort(),
    );
    const outcome = await resumed.revert();
    expect(outcome?.conflicts).toEqual([]);
    expect(treeOf(env.workspaceDir)).toEqual(before);
    await resumed.dispose();
  });

  it("while another process has the session open, an offline revert and a resume are refused, naming it; a dry run is not", async () => {
    const env = await start();
    const { run, sessionId } = await changedAndWaiting(env);
    const changed = treeOf(env.workspaceDir);

    const offline = openSessionChanges(env.dataRoot, sessionId);
    const preview = await offline.revert(undefined, { dryRun: true });
    expect(preview?.restored).toContain(join(env.workspaceDir, "a.txt"));
    const refused = await offline.revert().catch((error: unknown) => error);
    offline.close();
    expect(refused).toBeInstanceOf(SessionHeldError);
    expect((refused as SessionHeldError).holder.pid).toBe(run.pid);
    expect(String(refused)).toMatch(/is open in another process \(pid \d+, since /);
    await expect(env.agent.resumeSession(sessionId)).rejects.toThrow(/is open in another process/);
    expect(treeOf(env.workspaceDir)).toEqual(changed);

    // Killed, it holds nothing: the same revert goes through.
    await run.kill();
    const after = openSessionChanges(env.dataRoot, sessionId);
    expect((await after.revert())?.conflicts).toEqual([]);
    after.close();
    expect(readFileSync(join(env.workspaceDir, "a.txt"), "utf8")).toBe("one\ntwo\n");
  });
});
