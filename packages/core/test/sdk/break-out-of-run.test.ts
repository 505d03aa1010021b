import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { chatMessages, collect, kind, MODEL, RETRY_FAST, setup, traceRecords } from "./fixtures.js";

// "Stopping the iteration early interrupts the task": a `break` in the caller's loop ends the task
// as an interrupt through the signal would, so the same Session object and a resumed one go on
// from the same context. Through the SDK against fake-llm over HTTP, with real processes.

const start = cleanedUpAfterEach(setup);

describe("breaking out of session.run", () => {
  it("mid tool call: the call is stopped and answered, the trace ends the task, and the next run sends what a resume would", async () => {
    const env = await start([
      {
        text: "Starting the long job.",
        tool_calls: [
          {
            id: "call_long",
            name: "exec_command",
            arguments: { description: "long", cmd: "echo started; sleep 5; echo done > finished.txt" },
          },
        ],
      },
      { text: "Noted, it was stopped." },
      { text: "Still here." },
    ]);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const seen: string[] = [];
    for await (const message of session.run("Run the long job.", { approve: allowAll })) {
      seen.push(kind(message));
      // The reply has ended (the turn can commit) and the command is running.
      if (seen.includes("request_end") && seen.includes("partial_tool_call_output")) break;
    }
    expect(session.isRunning).toBe(false);
    expect(seen).not.toContain("task_end");

    // The trace closes the task as an interrupt: the call's output, the abort, task_end aborted.
    const records = traceRecords(session.tracePath);
    const kinds = records.map(kind);
    expect(kinds.slice(-2)).toEqual(["abort", "task_end"]);
    expect(records.at(-1)?.payload).toMatchObject({ type: "task_end", status: "aborted" });
    expect(records.find((m) => kind(m) === "tool_call_output")?.payload).toMatchObject({
      tool_call_id: "call_long",
      stop_reason: "aborted",
    });

    // The same object goes on from the interrupted turn: its call answered right after it.
    const next = await collect(session.run("What happened?", { approve: allowAll }));
    await session.dispose();
    expect(next.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
    const live = chatMessages(env.llm, 1);
    expect(live.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(live[3].tool_call_id).toBe("call_long");
    expect(existsSync(join(env.workspaceDir, "finished.txt"))).toBe(false);

    // A resumed session sends that same context byte for byte, then the answer and its input.
    const resumed = await env.agent.resumeSession(session.id);
    await collect(resumed.run("And now?", { approve: allowAll }));
    await resumed.dispose();
    const afterResume = chatMessages(env.llm, 2);
    expect(JSON.stringify(afterResume.slice(0, live.length))).toBe(JSON.stringify(live));
    expect(afterResume.slice(live.length)).toEqual([
      { role: "assistant", content: "Noted, it was stopped." },
      { role: "user", content: "And now?" },
    ]);
  });

  it("mid model stream: the unfinished reply is handed back to the next run, as after an interrupt", async () => {
    const env = await start([
      { text: "A reply that streams slowly and is abandoned.", chunk_size: 4, chunk_delay_ms: 20 },
      { text: "Picked up." },
    ]);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    let deltas = 0;
    for await (const message of session.run("Talk.", { approve: allowAll })) {
      if (kind(message) === "partial_text" && ++deltas === 3) break;
    }
    const records = traceRecords(session.tracePath);
    expect(records.find((m) => kind(m) === "request_end")?.payload).toMatchObject({ status: "aborted" });
    expect(records.at(-1)?.payload).toMatchObject({ type: "task_end", status: "aborted" });

    await collect(session.run("Go on.", { approve: allowAll }));
    await session.dispose();
    const sent = chatMessages(env.llm, 1);
    expect(sent.map((m) => m.role)).toEqual(["system", "user"]);
    const last = String(sent[1].content);
    expect(last).toContain("[turn_aborted]");
    expect(last).toMatch(/assistant[^:\n]*: A re/);
    expect(last).toMatch(/Go on\.$/);
  });
});
