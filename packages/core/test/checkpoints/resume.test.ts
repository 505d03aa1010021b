import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
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

describe("checkpoints survive a killed session", () => {
  it("SIGKILL mid-task, then resume, then revert: the files are as before the task", async () => {
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
    const before = treeOf(env.workspaceDir);

    const run = spawnSession(env, "Change and wait.", cleanups, EXTENDED);
    const { session_id: sessionId } = (await run.waitFor((line) => "session_id" in line)) as {
      session_id: string;
    };
    await run.waitFor(
      (line) =>
        (line.payload as { type?: string; call_id?: string; id?: string })?.type === "tool_call" &&
        JSON.stringify(line).includes('"c3"'),
    );
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
});
