import { activityResolved, approvalDecision, toolCall, toolDispatched, toolEffect } from "@penguin/protocol";
import { TraceWriter } from "@penguin/trace";
import { describe, expect, it } from "vitest";
import { readJson, request } from "./helpers.js";
import { envelopes, payloadType, sessionServer } from "./session-fixture.js";

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
    expect(await read()).toEqual({ uncertain: [], resolved: [] });

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
