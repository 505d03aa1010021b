import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { activityResolved, approvalDecision, toolCall, toolDispatched, toolEffect } from "@penguin/protocol";
import { readSession, TraceWriter } from "@penguin/trace";
import { describe, expect, it } from "vitest";
import { readJson, request } from "./helpers.js";
import {
  envelopes,
  eventually,
  execTurn,
  payloadType,
  type SessionServer,
  sessionServer,
} from "./session-fixture.js";

// GET /api/sessions/:id/recovery over a real server: a task that ran a real write_file leaves
// nothing uncertain; a call the trace shows started with no result (what a crash leaves, appended
// here to the session's real trace) is listed with the file it was changing until a decision on
// it is recorded.

interface Recovery {
  uncertain: { tool_call_id: string; name: string; files: { path: string }[]; in_progress: boolean }[];
  resolved: { tool_call_id: string; decision: string; evidence: string; by: string }[];
}

describe("GET /api/sessions/:id/recovery", () => {
  it("lists a started call without a result as uncertain until it is resolved", async () => {
    const s = await sessionServer([
      { tool_calls: [{ name: "write_file", arguments: { file_path: "done.txt", content: "done\n" } }] },
      { text: "Written." },
    ]);
    const id = await s.createSession();
    const anonymous = await request(s.server.url, `/api/sessions/${id}/recovery`, {});
    expect(anonymous.status).toBe(401);

    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Write done.txt" } });
    await stream.until((c) => envelopes(c.events).some((m) => payloadType(m) === "task_end"));
    const read = async () => readJson<Recovery>(await s.call(`/api/sessions/${id}/recovery`));
    expect(await read()).toEqual({ uncertain: [], resolved: [], processes: [] });

    const trace = TraceWriter.open(s.server.sessions.location, id);
    trace.append(toolCall("write_file", { file_path: "half.txt", content: "x" }, "call_crashed"));
    trace.append(approvalDecision("call_crashed", "allow"));
    trace.append(toolDispatched({ tool_call_id: "call_crashed", name: "write_file", read_only: false }));
    trace.append(
      toolEffect({
        tool_call_id: "call_crashed",
        files: [{ path: "/ws/half.txt", before_sha256: null, after_sha256: "a".repeat(64) }],
      }),
    );
    const during = await read();
    expect(during.uncertain).toEqual([
      expect.objectContaining({
        tool_call_id: "call_crashed",
        name: "write_file",
        files: [expect.objectContaining({ path: "/ws/half.txt" })],
        in_progress: false,
      }),
    ]);

    trace.append(
      activityResolved({
        tool_call_id: "call_crashed",
        decision: "retry",
        evidence: "half.txt is absent",
        by: "user",
      }),
    );
    trace.close();
    const after = await read();
    expect(after.uncertain).toEqual([]);
    expect(after.resolved).toEqual([
      expect.objectContaining({
        tool_call_id: "call_crashed",
        decision: "retry",
        evidence: "half.txt is absent",
        by: "user",
      }),
    ]);
  });
});

interface RecoveryWithChecks {
  uncertain: { tool_call_id: string; evidence: string; suggestion?: string; in_progress: boolean }[];
  resolved: { tool_call_id: string; decision: string; evidence: string; by: string; verified?: string }[];
  processes: {
    id: string;
    origin: string;
    command: string;
    state: string;
    exit?: unknown;
    output_bytes: number;
  }[];
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** Appends what a crash during a write_file leaves in the trace: the call started, its effect journaled, no result. */
function appendCrashedWrite(
  s: SessionServer,
  sessionId: string,
  callId: string,
  file: string,
  content: string,
) {
  const trace = TraceWriter.open(s.server.sessions.location, sessionId);
  trace.append(toolCall("write_file", { file_path: file, content }, callId));
  trace.append(approvalDecision(callId, "allow"));
  trace.append(toolDispatched({ tool_call_id: callId, name: "write_file", read_only: false }));
  trace.append(
    toolEffect({
      tool_call_id: callId,
      files: [{ path: join(s.workspace, file), before_sha256: null, after_sha256: sha256(content) }],
    }),
  );
  trace.close();
}

describe("recovery with Penguin's check and the user's decision", () => {
  it("shows each uncertain write with its check and the retained commands, and records the user's decision", async () => {
    const s = await sessionServer([execTurn("echo retained", "call_echo"), { text: "Ran it." }], {
      idleReleaseMs: 50,
    });
    const id = await s.createSession();
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Run echo" } });
    await stream.until((c) => envelopes(c.events).some((m) => payloadType(m) === "task_end"));
    // The runtime is released: the session is reopened from its trace, as after a server restart.
    await eventually(() => s.server.sessions.runtime(id) === undefined || undefined, "the runtime's release");

    appendCrashedWrite(s, id, "call_applied", "applied.txt", "applied\n");
    await writeFile(join(s.workspace, "applied.txt"), "applied\n");
    appendCrashedWrite(s, id, "call_missing", "missing.txt", "missing\n");

    const read = async () => readJson<RecoveryWithChecks>(await s.call(`/api/sessions/${id}/recovery`));
    const before = await read();
    expect(before.uncertain).toEqual([
      expect.objectContaining({
        tool_call_id: "call_applied",
        evidence: expect.stringMatching(/^applied: .*applied\.txt has the hash the call would give/),
        suggestion: "accept",
        in_progress: false,
      }),
      expect.objectContaining({
        tool_call_id: "call_missing",
        evidence: expect.stringMatching(
          /^not applied: .*missing\.txt still has the hash from before the call/,
        ),
        suggestion: "retry",
      }),
    ]);
    expect(before.processes).toEqual([
      expect.objectContaining({
        origin: "exec_command",
        command: "echo retained",
        state: "exited",
        exit: { kind: "code", code: 0 },
      }),
    ]);

    const resolveUrl = (callId: string) => `/api/sessions/${id}/recovery/${callId}/resolve`;
    const anonymous = await request(s.server.url, resolveUrl("call_applied"), {
      method: "POST",
      json: { decision: "accept", evidence: "applied.txt reads applied" },
    });
    expect(anonymous.status).toBe(401);
    for (const bad of [
      { decision: "accept", evidence: "   " },
      { decision: "maybe", evidence: "checked" },
      { decision: "accept" },
      { decision: "accept", evidence: "x".repeat(5000) },
      { decision: "accept", evidence: "checked", extra: true },
    ]) {
      expect(
        (await s.call(resolveUrl("call_applied"), { json: bad })).status,
        JSON.stringify(bad).slice(0, 60),
      ).toBe(400);
    }
    const unknown = await s.call(resolveUrl("call_nope"), {
      json: { decision: "accept", evidence: "checked" },
    });
    expect(unknown.status).toBe(422);
    const finished = await s.call(resolveUrl("call_echo"), {
      json: { decision: "accept", evidence: "checked" },
    });
    expect(finished.status).toBe(409);
    expect(await finished.text()).toContain("is not uncertain");

    const accepted = await s.call(resolveUrl("call_applied"), {
      json: { decision: "accept", evidence: "applied.txt reads applied" },
    });
    expect(accepted.status, await accepted.clone().text()).toBe(200);
    expect(await readJson(accepted)).toEqual({
      tool_call_id: "call_applied",
      name: "write_file",
      decision: "accept",
      evidence: "applied.txt reads applied",
      by: "user",
      verified: expect.stringMatching(/^applied: /),
    });

    const after = await read();
    expect(after.uncertain.map((step) => step.tool_call_id)).toEqual(["call_missing"]);
    expect(after.resolved).toEqual([
      expect.objectContaining({
        tool_call_id: "call_applied",
        decision: "accept",
        evidence: "applied.txt reads applied",
        by: "user",
        verified: expect.stringMatching(/^applied: /),
      }),
    ]);
    const records = readSession(s.server.sessions.location, id).records;
    const resolved = records
      .map((record) => record.payload as { type?: string; tool_call_id?: string; by?: string })
      .filter((payload) => payload.type === "activity_resolved");
    expect(resolved).toEqual([expect.objectContaining({ tool_call_id: "call_applied", by: "user" })]);
  });
});

describe("POST .../recovery/:toolCallId/resolve while the task runs", () => {
  it("refuses a decision on a call the running task started", async () => {
    const s = await sessionServer([execTurn("sleep 20", "call_sleeping", 20_000), { text: "Slept." }]);
    const id = await s.createSession();
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Sleep" } });
    await eventually(
      () =>
        readSession(s.server.sessions.location, id).records.some(
          (record) => (record.payload as { type?: string }).type === "tool_dispatched",
        ) || undefined,
      "the command's start",
    );
    const view = await readJson<RecoveryWithChecks>(await s.call(`/api/sessions/${id}/recovery`));
    expect(view.uncertain).toEqual([
      expect.objectContaining({ tool_call_id: "call_sleeping", in_progress: true }),
    ]);

    const refused = await s.call(`/api/sessions/${id}/recovery/call_sleeping/resolve`, {
      json: { decision: "retry", evidence: "it is still sleeping" },
    });
    expect(refused.status).toBe(409);
    expect(await readJson(refused)).toMatchObject({ error: "task_in_progress" });
    expect((await s.call(`/api/sessions/${id}/abort`, { json: {} })).status).toBeLessThan(300);
  });
});
