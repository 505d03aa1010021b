import { describe, expect, it } from "vitest";
import { readJson } from "./helpers.js";
import { payloadType, sessionServer, waitForEnvelope, waitForServerEvent } from "./session-fixture.js";

// What the web UI's approval cards offer, as the terminal does: allow once, deny with a reason
// the model reads, allow the call's tool or a command prefix for the rest of the session.

interface AuditBody {
  audit: { toolCallId: string; decision: string; source?: { kind: string; name?: string } }[];
}

const exec = (id: string, cmd: string) => ({
  id,
  name: "exec_command",
  arguments: { description: `run ${cmd}`, cmd, yield_time_ms: 30_000 },
});

describe("approval choices over HTTP", () => {
  it("a command prefix allowed for the session lets the next matching command run unasked; a denial carries its reason", async () => {
    const s = await sessionServer([
      { tool_calls: [exec("call_a", "echo first")] },
      { tool_calls: [exec("call_b", "echo second")] },
      { tool_calls: [exec("call_c", "ls -la")] },
      { text: "Done." },
    ]);
    const id = await s.createSession({ approval_mode: "always-ask" });
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Run commands" } });

    const [first] = await waitForServerEvent(stream, "approval_request");
    expect(first).toMatchObject({ suggested_prefix: "echo first" });
    const decide = (call: string, body: unknown) =>
      s.call(`/api/sessions/${id}/approvals/${call}`, { json: body });

    // A rule must cover the call it is granted on; a rule goes with allow, a reason with deny.
    const wrong = await decide("call_a", { decision: "allow", remember: { command_prefix: "ls" } });
    expect(wrong.status).toBe(400);
    expect(await readJson(wrong)).toMatchObject({ message: expect.stringContaining("does not cover") });
    expect((await decide("call_a", { decision: "deny", remember: { tool: true } })).status).toBe(400);
    expect((await decide("call_a", { decision: "allow", reason: "fine" })).status).toBe(400);
    expect((await decide("call_a", { decision: "allow", remember: { tool: false } })).status).toBe(400);

    const allowed = await decide("call_a", { decision: "allow", remember: { command_prefix: "echo" } });
    expect(allowed.status).toBe(200);

    // call_b (`echo second`) is allowed by the rule; call_c (`ls -la`) is asked about.
    const requests = await waitForServerEvent(stream, "approval_request", 2);
    expect(requests[1]).toMatchObject({
      tool_call: { payload: { tool_call_id: "call_c" } },
      suggested_prefix: "ls",
    });
    const denied = await decide("call_c", { decision: "deny", reason: "  Use read_file for listings.  " });
    expect(denied.status).toBe(200);

    const messages = await waitForEnvelope(stream, "task_end");
    const outputs = messages.filter((m) => payloadType(m) === "tool_call_output").map((m) => m.payload);
    const outputOf = (call: string) =>
      outputs.find((p) => (p as { tool_call_id: string }).tool_call_id === call) as
        | { output: string }
        | undefined;
    expect(outputOf("call_b")?.output).toContain("second");
    expect(outputOf("call_c")?.output).toContain("Use read_file for listings.");
    // The model read the reason in its next request.
    expect(JSON.stringify(s.llm.requests.at(-1))).toContain("Use read_file for listings.");

    const { audit } = await readJson<AuditBody>(await s.call(`/api/sessions/${id}/approvals/audit`));
    expect(audit.map((entry) => [entry.toolCallId, entry.decision, entry.source?.kind])).toEqual([
      ["call_a", "allow", "human"],
      ["call_b", "allow", "session_rule"],
      ["call_c", "deny", "human"],
    ]);
  });

  it("allowing the call's tool for the session lets its next call run unasked", async () => {
    const s = await sessionServer([
      {
        tool_calls: [{ id: "call_w1", name: "write_file", arguments: { file_path: "a.txt", content: "a" } }],
      },
      {
        tool_calls: [{ id: "call_w2", name: "write_file", arguments: { file_path: "b.txt", content: "b" } }],
      },
      { text: "Both written." },
    ]);
    const id = await s.createSession({ approval_mode: "always-ask" });
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Write two files" } });
    const [first] = await waitForServerEvent(stream, "approval_request");
    expect(first).not.toHaveProperty("suggested_prefix");
    const allowed = await s.call(`/api/sessions/${id}/approvals/call_w1`, {
      json: { decision: "allow", remember: { tool: true } },
    });
    expect(allowed.status).toBe(200);
    await waitForEnvelope(stream, "task_end");
    const { audit } = await readJson<AuditBody>(await s.call(`/api/sessions/${id}/approvals/audit`));
    expect(audit.map((entry) => [entry.toolCallId, entry.source?.kind])).toEqual([
      ["call_w1", "human"],
      ["call_w2", "session_rule"],
    ]);
  });
});
