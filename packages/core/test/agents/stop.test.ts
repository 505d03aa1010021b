import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { collect, kind, outputOf } from "../subagent/fixtures.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { exec, launch, MODEL, RETRY_FAST, send, setupTree, stop, wait } from "./fixtures.js";

// stop_agent ends a subtree of agents and every process group they started, including children
// a shell left behind: checked with the real process id the grandchild's command wrote.

const start = cleanedUpAfterEach(setupTree);

const CHILD = "ALPHA-MARKER";
const GRANDCHILD = "BRAVO-MARKER";

/**
 * Whether `pid` is a live process. A killed process whose parent (an exited shell) left it to an
 * init that does not reap stays a zombie until reaped: it runs nothing, so it counts as gone.
 */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe("stop_agent", () => {
  it("of a child whose grandchild runs `sleep 1000 &` leaves nothing running", async () => {
    const env = await start({
      root: [
        { tool_calls: [launch("r_launch", "Start a helper.", { instructions: `You are ${CHILD}.` })] },
        { tool_calls: [wait("r_wait", 20_000)] },
        { tool_calls: [stop("r_stop", "sub_1")] },
        { tool_calls: [stop("r_again", "sub_1"), stop("r_unknown", "sub_9")] },
        { text: "root done" },
      ],
      routes: {
        [CHILD]: [
          {
            tool_calls: [launch("c_launch", "Start a sleeper.", { instructions: `You are ${GRANDCHILD}.` })],
          },
          { tool_calls: [wait("c_wait", 20_000)] },
          { tool_calls: [send("c_ready", "root", "the sleeper runs")] },
          { tool_calls: [wait("c_forever", 600_000)] },
        ],
        [GRANDCHILD]: [
          // The shell exits at once; the sleep it left behind keeps the process group alive.
          { tool_calls: [exec("g_sleep", "sleep 1000 > /dev/null 2>&1 & echo $! > sleeper.pid", 2_000)] },
          { tool_calls: [send("g_started", "sub_1", "started")] },
          { tool_calls: [wait("g_forever", 600_000)] },
        ],
      },
    });
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const pidFile = join(env.workspaceDir, "sleeper.pid");
    let pid = 0;
    let aliveBeforeStop = false;
    const yielded = await collect(session.run("Run and stop.", { approve: allowAll }), (message) => {
      // The sleeper has started once the child reported it (the root's wait returns before stop_agent).
      if (
        kind(message) === "tool_call_output" &&
        (message.payload as { tool_call_id: string }).tool_call_id === "r_wait"
      ) {
        pid = Number(readFileSync(pidFile, "utf8").trim());
        aliveBeforeStop = alive(pid);
      }
    });
    const tree = session.subagents;
    const rootId = session.id;

    expect(pid).toBeGreaterThan(0);
    expect(aliveBeforeStop).toBe(true);
    const stopped = outputOf(yielded, "r_stop");
    expect(stopped.stop_reason).toBe("completed");
    expect(stopped.output).toBe("Stopped sub_1, sub_2; ended 1 process group of their commands and jobs.");
    expect(alive(pid)).toBe(false);
    expect(env.events(rootId, "agent_stopped")).toEqual([
      expect.objectContaining({
        agent_run_id: "sub_1",
        stopped: ["sub_1", "sub_2"],
        processes_ended: 1,
        tool_call_id: "r_stop",
      }),
    ]);
    expect(tree.map((child) => [child.subagentId, child.status, child.lastTask?.status])).toEqual([
      ["sub_1", "idle", "aborted"],
      ["sub_2", "idle", "aborted"],
    ]);
    // Stopping again: nothing runs. An id no agent has: a clear failure.
    expect(outputOf(yielded, "r_again").output).toContain("Nothing was running: sub_1");
    const unknown = outputOf(yielded, "r_unknown");
    expect(unknown.stop_reason).toBe("failed");
    expect(unknown.output).toContain('unknown subagent_id "sub_9"');
    await session.dispose();
  });

  it("refuses an agent that is not below the caller", async () => {
    // The one to be stopped is launched a turn before its sibling, so that it exists when the
    // sibling tries (launches of one turn start together, and either may come first).
    const env = await start({
      root: [
        { tool_calls: [launch("r_b", "Wait.", { instructions: `You are ${GRANDCHILD}.` })] },
        { tool_calls: [launch("r_a", "Stop your sibling.", { instructions: `You are ${CHILD}.` })] },
        { tool_calls: [wait("r_wait", 20_000)] },
        { tool_calls: [stop("r_stop", "sub_1")] },
        { text: "root done" },
      ],
      routes: {
        [CHILD]: [
          { tool_calls: [stop("a_stop", "sub_1")] },
          { tool_calls: [send("a_tell", "root", "tried")] },
          { text: "a done" },
        ],
        [GRANDCHILD]: [{ tool_calls: [wait("b_wait", 600_000)] }],
      },
    });
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    await collect(session.run("Go.", { approve: allowAll }));
    const [, a] = session.subagents;
    await until(() => env.requestsOf(CHILD).length >= 3, "sub_2's last request");
    const refused = JSON.stringify(env.requestsOf(CHILD)[1]?.body);
    expect(refused).toContain(
      'sub_2 cannot stop \\"sub_1\\": an agent may stop only agents it launched and the agents they launched. Nothing was stopped.',
    );
    expect(a?.status).toBe("idle");
    await session.dispose();
  });
});
