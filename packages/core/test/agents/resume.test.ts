import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { collect, outputOf } from "../subagent/fixtures.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { exec, launch, MODEL, RETRY_FAST, send, setupTree, wait } from "./fixtures.js";

// A real node process runs a session whose three agents (root, child, grandchild) are all in long
// tool calls (and a fourth has already ended its task); the test SIGKILLs it, then resumes the
// session in this process: the tree is rebuilt from the traces, the running children show as
// interrupted, and what the root never read (the child's message, the ended child's report) is
// back in the root's inbox.

const start = cleanedUpAfterEach(setupTree);
const here = dirname(fileURLToPath(import.meta.url));

const ALPHA = "ALPHA-MARKER";
const BRAVO = "BRAVO-MARKER";
const CHARLIE = "CHARLIE-MARKER";

/** Process groups the killed process left running (its commands), ended after each test. */
const leftGroups: number[] = [];
let child: ChildProcess | undefined;
afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const pgid of leftGroups.splice(0)) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {}
  }
});

async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A command that records its process group and then runs long. */
const longCall = (id: string, name: string) => exec(id, `echo $$ > ${name}.pgid; sleep 120`, 60_000);

describe("SIGKILL with three agents running, then resume", () => {
  it("rebuilds the tree with the running children interrupted, and puts what the root never read back in its inbox", async () => {
    const env = await start({
      root: [
        {
          tool_calls: [
            launch("r_launch", "Coordinate.", { instructions: `You are ${ALPHA}.` }),
            launch("r_quick", "Answer at once.", { instructions: `You are ${CHARLIE}.` }),
          ],
        },
        { tool_calls: [longCall("r_long", "root")] },
        // After the resume:
        { tool_calls: [wait("r_after", 0)] },
        { text: "resumed root done" },
      ],
      routes: {
        [ALPHA]: [
          { tool_calls: [launch("a_launch", "Help.", { instructions: `You are ${BRAVO}.` })] },
          { tool_calls: [send("a_send", "root", "a message the root never read")] },
          { tool_calls: [longCall("a_long", "alpha")] },
        ],
        [BRAVO]: [{ tool_calls: [longCall("b_long", "bravo")] }],
        [CHARLIE]: [{ text: "quick answer" }],
      },
    });
    child = spawn(
      process.execPath,
      [join(here, "tree-session.mjs"), env.dataRoot, env.workspaceDir, MODEL, "Run the tree."],
      // The test's temp folder as HOME: no dotfiles of the machine reach the session's shells.
      { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, HOME: env.root } },
    );
    const firstLine = await new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: child!.stdout! });
      lines.once("line", resolve);
      child!.once("exit", (code) => reject(new Error(`the session process exited early (${code})`)));
    });
    const rootId = (JSON.parse(firstLine) as { session_id: string }).session_id;
    const pgidFiles = ["root", "alpha", "bravo"].map((name) => join(env.workspaceDir, `${name}.pgid`));
    await until(
      () => pgidFiles.every((file) => existsSync(file) && readFileSync(file, "utf8").trim() !== ""),
      "three long calls",
    );
    leftGroups.push(...pgidFiles.map((file) => Number(readFileSync(file, "utf8").trim())));
    // sub_2 has ended its task (its report waits, unread, in the root's inbox).
    await until(() => {
      const quick = env.events<{ agent_run_id: string; session_id: string }>(rootId, "agent_launched");
      const session = quick.find((launched) => launched.agent_run_id === "sub_2")?.session_id;
      return session !== undefined && env.events(session, "task_end").length > 0;
    }, "sub_2's end");

    child.kill("SIGKILL");
    await new Promise((resolve) => child!.once("exit", resolve));

    const resumed = await env.agent.resumeSession(rootId, { retry: RETRY_FAST });
    expect(
      resumed.subagents.map(({ subagentId, parent, depth, status }) => ({
        subagentId,
        parent,
        depth,
        status,
      })),
    ).toEqual([
      { subagentId: "sub_1", parent: "root", depth: 1, status: "interrupted" },
      { subagentId: "sub_2", parent: "root", depth: 1, status: "idle" },
      { subagentId: "sub_3", parent: "sub_1", depth: 2, status: "interrupted" },
    ]);
    const yielded = await collect(resumed.run("Go on.", { approve: allowAll }));
    const delivered = outputOf(yielded, "r_after");
    expect(delivered.output).toMatch(
      /^2 messages:\n\n\[msg_\d+\] from sub_1 at [^\n]+:\na message the root never read\n\n\[msg_\d+\] from sub_2 at [^\n]+:\n\[agent sub_2 finished: completed\]\nFinal answer:\nquick answer$/,
    );
    // Delivered now: the root's trace records it with the id the child's trace gave it.
    const [sent] = env.events<{ message_id: string }>(resumed.subagents[0]!.sessionId, "message_sent");
    expect(env.events(rootId, "message_delivered")).toEqual([
      expect.objectContaining({ message_id: sent?.message_id, from: "sub_1", tool_call_id: "r_after" }),
      expect.objectContaining({ from: "sub_2", tool_call_id: "r_after" }),
    ]);
    expect(env.events(rootId, "agent_finished")).toEqual([
      expect.objectContaining({ agent_run_id: "sub_2", status: "completed", tool_call_id: "r_after" }),
    ]);
    await resumed.dispose();
  });
});
