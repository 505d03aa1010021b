import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage, ToolCallPayload } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import type { ApproveFn, Approver } from "../../src/approval/approver.js";
import { allowAll, readOnly } from "../../src/approval/policies.js";
import { collect, MODEL, RETRY_FAST, setup, traceRecords } from "../sdk/fixtures.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";

// "Every complete tool_call triggers exactly one approval decision" (the rule lives in
// src/approval/gate.ts, decideApproval). Through a real Session and fake-llm over HTTP: the
// approver is asked once per call, and the trace holds one approval_decision per call.

const start = cleanedUpAfterEach(setup);

const exec = (cmd: string, id: string) => ({
  id,
  name: "exec_command",
  arguments: { description: "run it", cmd },
});
const read = (file: string, id: string) => ({ id, name: "read_file", arguments: { file_path: file } });

/** How many times each tool call id was put to the approver. */
class AskCounter {
  readonly asked = new Map<string, number>();

  note(call: OmniMessage<ToolCallPayload>): void {
    const id = call.payload.tool_call_id;
    this.asked.set(id, (this.asked.get(id) ?? 0) + 1);
  }

  /** A counting wrapper around an approver. */
  around(approver: Approver): Approver {
    return {
      mode: approver.mode,
      decide: (call, context) => {
        this.note(call);
        return approver.decide(call, context);
      },
    };
  }
}

/** Per tool call id: how many approval_decision records and how many outputs the trace holds. */
function tracedPerCall(records: OmniMessage[]) {
  const decisions = new Map<string, number>();
  const outputs = new Map<string, number>();
  const calls: string[] = [];
  for (const record of records) {
    const payload = record.payload as { type: string; tool_call_id?: string };
    const id = payload.tool_call_id ?? "";
    if (payload.type === "tool_call") calls.push(id);
    if (payload.type === "approval_decision") decisions.set(id, (decisions.get(id) ?? 0) + 1);
    if (payload.type === "tool_call_output") outputs.set(id, (outputs.get(id) ?? 0) + 1);
  }
  return { calls, decisions, outputs };
}

async function runSession(env: Awaited<ReturnType<typeof setup>>, approve: ApproveFn | Approver) {
  const session = await env.agent.createSession({
    workspaceDir: env.workspaceDir,
    model: MODEL,
    retry: RETRY_FAST,
  });
  const yielded = await collect(session.run("Go.", { approve }));
  await session.dispose();
  return { yielded, records: traceRecords(session.tracePath) };
}

describe("one approval decision per call", () => {
  it("asks a plain callback once per call of a concurrent round, denied calls included", async () => {
    const env = await start([
      {
        tool_calls: [
          exec("sleep 0.2; echo slow", "call_slow"),
          exec("echo denied", "call_denied"),
          exec("echo fast", "call_fast"),
        ],
      },
      { text: "Done." },
    ]);
    const counter = new AskCounter();
    const approve: ApproveFn = async (call) => {
      counter.note(call);
      return call.payload.tool_call_id === "call_denied" ? "deny" : "allow";
    };
    const { yielded, records } = await runSession(env, approve);
    expect(yielded.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });

    const ids = ["call_slow", "call_denied", "call_fast"];
    expect(Object.fromEntries(counter.asked)).toEqual({ call_slow: 1, call_denied: 1, call_fast: 1 });
    const traced = tracedPerCall(records);
    expect(traced.calls).toEqual(ids);
    for (const id of ids) {
      expect(traced.decisions.get(id)).toBe(1);
      expect(traced.outputs.get(id)).toBe(1);
    }
    const denied = records.find(
      (r) =>
        (r.payload as { type: string; tool_call_id?: string }).type === "approval_decision" &&
        (r.payload as { tool_call_id?: string }).tool_call_id === "call_denied",
    );
    expect(denied?.payload).toMatchObject({ decision: "deny", source: { kind: "callback" } });
  });

  it("asks a policy once per call, whether it decides alone or asks a human", async () => {
    const env = await start([
      { tool_calls: [read("notes.txt", "call_read"), exec("echo hi", "call_exec")] },
      { text: "Done." },
    ]);
    writeFileSync(join(env.workspaceDir, "notes.txt"), "some notes\n");
    const counter = new AskCounter();
    const humans: string[] = [];
    const policy = counter.around(
      readOnly(async (call) => {
        humans.push(call.payload.tool_call_id);
        return "allow";
      }),
    );
    const { records } = await runSession(env, policy);

    expect(Object.fromEntries(counter.asked)).toEqual({ call_read: 1, call_exec: 1 });
    // read-only decides the read alone and asks a human about the command, once.
    expect(humans).toEqual(["call_exec"]);
    const traced = tracedPerCall(records);
    expect(Object.fromEntries(traced.decisions)).toEqual({ call_read: 1, call_exec: 1 });
    expect(Object.fromEntries(traced.outputs)).toEqual({ call_read: 1, call_exec: 1 });
  });

  it("decides a call cut off by a dropped stream once, when the retried request completes it", async () => {
    const env = await start([
      { tool_calls: [exec("echo retried", "call_retried")], chunk_size: 4, cut: { after_chunks: 3 } },
      { tool_calls: [exec("echo retried", "call_retried")] },
      { text: "Done." },
    ]);
    const counter = new AskCounter();
    const { yielded, records } = await runSession(env, counter.around(allowAll));

    const ends = yielded
      .map((m) => m.payload as { type: string; status?: string })
      .filter((p) => p.type === "request_end");
    expect(ends[0]?.status).not.toBe("completed");
    expect(yielded.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
    // The cut-off attempt's call was never complete, so never decided; the retry's call (its id
    // made session-unique, since the cut-off attempt had named it already) is the only call,
    // decided and answered once.
    const traced = tracedPerCall(records);
    expect(traced.calls).toHaveLength(1);
    const [id] = traced.calls;
    expect(id).toMatch(/^call_retried/);
    expect(Object.fromEntries(counter.asked)).toEqual({ [id]: 1 });
    expect(Object.fromEntries(traced.decisions)).toEqual({ [id]: 1 });
    expect(Object.fromEntries(traced.outputs)).toEqual({ [id]: 1 });
  });
});
