import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readJson } from "./helpers.js";
import {
  envelopes,
  eventually,
  execTurn,
  payloadType,
  sessionServer,
  waitForEnvelope,
} from "./session-fixture.js";

/** Pids whose command line contains `needle` (read from /proc, as `ps` would). */
function pidsRunning(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      if (cmdline.includes(needle)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** A parent turn that starts a subagent and waits `windowMs` for it in the foreground. */
function spawnTurn(prompt: string, windowMs: number) {
  return {
    tool_calls: [
      {
        id: "call_spawn",
        name: "run_subagent",
        arguments: { description: "delegate", prompt, yield_time_ms: windowMs },
      },
    ],
  };
}

describe("background subagents", () => {
  it("abort stops a background subagent and ends every command it and its parent started", async () => {
    // Unique durations, so the processes can be found by their command line.
    const childBackground = "sleep 7371.25";
    const childForeground = "sleep 7372.25";
    const parentCommand = "sleep 7373.25";
    // Parent and child share the model and take turns: the child runs both its commands within
    // the parent's window; then the window elapses and the parent's own command keeps it busy.
    const s = await sessionServer([
      spawnTurn("Start the long commands.", 3_000),
      execTurn(childBackground, "call_child_bg", 250),
      execTurn(childForeground, "call_child_fg"),
      execTurn(parentCommand, "call_parent"),
      { text: "unused" },
      { text: "unused" },
    ]);
    const id = await s.createSession();
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Delegate" } });
    await eventually(() => pidsRunning(parentCommand).length > 0, "the parent's command to run");
    expect(pidsRunning(childBackground).length).toBeGreaterThan(0);
    expect(pidsRunning(childForeground).length).toBeGreaterThan(0);
    const spawned = envelopes(stream.events).find(
      (m) =>
        payloadType(m) === "tool_call_output" &&
        (m.payload as { tool_call_id: string }).tool_call_id === "call_spawn",
    );
    // The run_subagent window elapsed: the child runs in the background.
    expect(JSON.stringify(spawned?.payload)).toContain("sub_1");

    const response = await s.call(`/api/sessions/${id}/abort`, { method: "POST" });
    expect(response.status).toBe(200);
    expect(await readJson(response)).toMatchObject({ aborted: true, task_state: { state: "idle" } });
    for (const cmd of [childBackground, childForeground, parentCommand]) {
      await eventually(() => pidsRunning(cmd).length === 0, `${cmd} to end`);
    }
    expect(s.server.sessions.runtime(id)?.session?.subagents).toEqual([
      expect.objectContaining({
        subagentId: "sub_1",
        status: "idle",
        lastTask: expect.objectContaining({ status: "aborted" }),
      }),
    ]);
    await waitForEnvelope(stream, "task_end");
  });

  it("abort after the parent's task ended still stops a subagent that runs in the background", async () => {
    const childCommand = "sleep 7374.25";
    const s = await sessionServer([
      spawnTurn("Start the long command.", 2_000),
      execTurn(childCommand, "call_child"),
      { text: "The subagent works in the background." },
      { text: "unused" },
    ]);
    const id = await s.createSession();
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Delegate" } });
    await stream.until((c) => envelopes(c.events).some((m) => payloadType(m) === "task_end" && !m.origin));
    expect(pidsRunning(childCommand).length).toBeGreaterThan(0);

    const response = await s.call(`/api/sessions/${id}/abort`, { method: "POST" });
    expect(await readJson(response)).toMatchObject({ aborted: true });
    await eventually(() => pidsRunning(childCommand).length === 0, "the child's command to end");
  });

  it("an idle session whose subagent still works is not released until the subagent is done", async () => {
    const s = await sessionServer(
      [
        // The command outlasts the run_subagent window by far, so the parent's task ends first.
        spawnTurn("Write the marker.", 1_500),
        execTurn("sleep 4 && echo done > child-marker"),
        { text: "The subagent works in the background." },
        { text: "The marker is written." },
      ],
      { idleReleaseMs: 100 },
    );
    const id = await s.createSession();
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Delegate" } });
    await stream.until((c) => envelopes(c.events).some((m) => payloadType(m) === "task_end" && !m.origin));
    expect(existsSync(join(s.workspace, "child-marker"))).toBe(false);
    // Released with the child mid-command, the child would have been disposed and its command killed.
    await eventually(() => existsSync(join(s.workspace, "child-marker")), "the child's command to finish");
    await eventually(() => s.server.sessions.runtime(id) === undefined, "the runtime to be released");
  });
});
