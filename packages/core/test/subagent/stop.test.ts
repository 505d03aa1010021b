import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { CHILD_MODEL, collect, MODEL, RETRY_FAST, runSubagent, setup } from "./fixtures.js";

const start = cleanedUpAfterEach(setup);

/** Whether a process whose command line contains `needle` runs (read from /proc). */
function running(needle: string): boolean {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .some((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").includes(needle);
      } catch {
        return false;
      }
    });
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

const execFor = (id: string, cmd: string, yieldTimeMs: number) => ({
  id,
  name: "exec_command",
  arguments: { description: "run it", cmd, yield_time_ms: yieldTimeMs },
});

describe("Session.stopSubagents", () => {
  it("interrupts a background subagent and ends its commands, and keeps it for a follow-up", async () => {
    // Unique durations, so the commands can be found by their command line.
    const background = "sleep 7381.25";
    const foreground = "sleep 7382.25";
    const env = await start(
      [
        {
          tool_calls: [runSubagent("call_run", { prompt: "Run both.", yield_time_ms: 200, ...CHILD_MODEL })],
        },
        { text: "It runs in the background." },
      ],
      {
        childScript: [
          { tool_calls: [execFor("child_bg", background, 100)] },
          { tool_calls: [execFor("child_fg", foreground, 30_000)] },
        ],
      },
    );
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    await collect(session.run("Delegate.", { approve: allowAll }));
    await until(() => running(background) && running(foreground), "the child's commands to run");
    expect(session.subagents[0].status).toBe("running");

    await session.stopSubagents("stop everything");
    expect(session.subagents).toEqual([
      expect.objectContaining({
        subagentId: "sub_1",
        status: "idle",
        lastTask: expect.objectContaining({ status: "aborted" }),
      }),
    ]);
    await until(() => !running(background) && !running(foreground), "the child's commands to end");
    await session.dispose();
  });
});
