import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readJson } from "./helpers.js";
import {
  envelopes,
  eventually,
  isAlive,
  payloadType,
  serverEvents,
  sessionServer,
  waitForEnvelope,
  waitForServerEvent,
} from "./session-fixture.js";
import { SseClient } from "./sse-client.js";

interface AuditBody {
  audit: {
    toolCallId: string;
    decision: string;
    source?: { kind: string; name?: string };
    outcome?: string;
  }[];
}

const exec = (id: string, cmd: string, yieldTimeMs = 30_000) => ({
  id,
  name: "exec_command",
  arguments: { description: `run ${cmd}`, cmd, yield_time_ms: yieldTimeMs },
});

describe("approvals over HTTP", () => {
  it("always-ask: approval requests arrive on SSE; one call allowed and one denied through the API, both audited as human", async () => {
    const s = await sessionServer([
      { tool_calls: [exec("call_a", "echo first-call"), exec("call_b", "echo second-call")] },
      { text: "One ran, one was denied." },
    ]);
    const id = await s.createSession({ approval_mode: "always-ask" });
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Run two commands" } });

    const [first] = await waitForServerEvent(stream, "approval_request");
    expect(first).toMatchObject({ tool_call: { payload: { tool_call_id: "call_a", name: "exec_command" } } });
    expect(first.origin).toBeUndefined();
    const pending = await readJson<{ approvals: { tool_call_id: string }[] }>(
      await s.call(`/api/sessions/${id}/approvals`),
    );
    expect(pending.approvals.map((a) => a.tool_call_id)).toEqual(["call_a"]);

    const allowed = await s.call(`/api/sessions/${id}/approvals/call_a`, { json: { decision: "allow" } });
    expect(allowed.status).toBe(200);
    expect(await readJson(allowed)).toEqual({ tool_call_id: "call_a", decision: "allow" });
    const again = await s.call(`/api/sessions/${id}/approvals/call_a`, { json: { decision: "deny" } });
    expect(again.status).toBe(409);
    expect(await readJson(again)).toMatchObject({ error: "already_decided" });

    const requests = await waitForServerEvent(stream, "approval_request", 2);
    expect(requests[1]).toMatchObject({ tool_call: { payload: { tool_call_id: "call_b" } } });
    expect(
      (await s.call(`/api/sessions/${id}/approvals/call_b`, { json: { decision: "deny" } })).status,
    ).toBe(200);
    expect(
      (await s.call(`/api/sessions/${id}/approvals/call_zzz`, { json: { decision: "allow" } })).status,
    ).toBe(404);

    const messages = await waitForEnvelope(stream, "task_end");
    const outputs = messages.filter((m) => payloadType(m) === "tool_call_output").map((m) => m.payload);
    expect(outputs.find((p) => (p as { tool_call_id: string }).tool_call_id === "call_a")).toMatchObject({
      output: expect.stringContaining("first-call"),
    });
    expect(outputs.find((p) => (p as { tool_call_id: string }).tool_call_id === "call_b")).toMatchObject({
      output: expect.stringContaining("denied"),
      stop_reason: "aborted",
    });

    const { audit } = await readJson<AuditBody>(await s.call(`/api/sessions/${id}/approvals/audit`));
    expect(audit.map((entry) => [entry.toolCallId, entry.decision, entry.source?.kind])).toEqual([
      ["call_a", "allow", "human"],
      ["call_b", "deny", "human"],
    ]);
    // Decided calls stay decided after the task: 409, not 404.
    expect(
      (await s.call(`/api/sessions/${id}/approvals/call_b`, { json: { decision: "allow" } })).status,
    ).toBe(409);
    expect(
      (await s.call(`/api/sessions/${id}/approvals/call_a`, { json: { decision: "maybe" } })).status,
    ).toBe(400);
  });

  it("re-reads the mode at every decision: a waiting call stays waiting after a PATCH, the next call uses the new mode", async () => {
    const s = await sessionServer([
      {
        tool_calls: [
          { id: "call_read", name: "read_file", arguments: { file_path: "notes.txt" } },
          exec("call_ask", "echo asked"),
          exec("call_auto", "echo automatic"),
        ],
      },
      { text: "All three ran." },
    ]);
    await writeFile(join(s.workspace, "notes.txt"), "some notes\n");
    const id = await s.createSession({ approval_mode: "read-only" });
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Read, then run two commands" } });

    // read-only: read_file (permission r) runs unasked; exec_command waits for a human.
    const [request] = await waitForServerEvent(stream, "approval_request");
    expect(request).toMatchObject({ tool_call: { payload: { tool_call_id: "call_ask" } } });

    const patched = await s.call(`/api/sessions/${id}`, {
      method: "PATCH",
      json: { approval_mode: "allow-all" },
    });
    expect(patched.status).toBe(200);
    expect(await readJson(patched)).toMatchObject({ session: { approval_mode: "allow-all" } });
    // The waiting call is not decided by the mode change.
    const still = await readJson<{ approvals: { tool_call_id: string }[] }>(
      await s.call(`/api/sessions/${id}/approvals`),
    );
    expect(still.approvals.map((a) => a.tool_call_id)).toEqual(["call_ask"]);

    await s.call(`/api/sessions/${id}/approvals/call_ask`, { json: { decision: "allow" } });
    await waitForEnvelope(stream, "task_end");
    expect(serverEvents(stream.events).filter((e) => e.type === "approval_request")).toHaveLength(1);
    const { audit } = await readJson<AuditBody>(await s.call(`/api/sessions/${id}/approvals/audit`));
    expect(audit.map((entry) => [entry.toolCallId, entry.decision, entry.source])).toEqual([
      ["call_read", "allow", { kind: "mode", name: "read-only" }],
      ["call_ask", "allow", { kind: "human" }],
      ["call_auto", "allow", { kind: "mode", name: "allow-all" }],
    ]);
  });

  it("publishes a mode or title change to every viewer of the session and to the owner's /api/events", async () => {
    const s = await sessionServer([]);
    const id = await s.createSession({ approval_mode: "always-ask" });
    const firstTab = await s.stream(id);
    const secondTab = await s.stream(id);
    const events = await SseClient.connect(`${s.server.url}/api/events`, { cookie: s.cookie });
    await eventually(() => s.server.hub.stats(`session:${id}`).subscribers === 2, "both tabs to subscribe");

    const patched = await s.call(`/api/sessions/${id}`, {
      method: "PATCH",
      json: { approval_mode: "read-only" },
    });
    expect(patched.status).toBe(200);
    for (const tab of [firstTab, secondTab]) {
      const [update] = await waitForServerEvent(tab, "session_updated");
      expect(update).toMatchObject({ session: { id, approval_mode: "read-only" } });
      // A live event with an id: a tab that reconnects after it does not get it twice.
      expect(tab.events.find((e) => e.data.includes("session_updated"))?.id).toMatch(/^[0-9a-z]+-\d+$/);
    }
    await s.call(`/api/sessions/${id}`, { method: "PATCH", json: { title: "Renamed" } });
    const updates = await waitForServerEvent(secondTab, "session_updated", 2);
    expect(updates[1]).toMatchObject({ session: { title: "Renamed", approval_mode: "read-only" } });
    await events.until((c) => c.events.filter((e) => e.data.includes("session_updated")).length >= 2);
    const listed = events.events.map((e) => JSON.parse(e.data)).filter((e) => e.type === "session_updated");
    expect(listed.map((e) => [e.session.approval_mode, e.session.title])).toEqual([
      ["read-only", ""],
      ["read-only", "Renamed"],
    ]);
    await events.close();

    // A refused change publishes nothing.
    await waitForServerEvent(firstTab, "session_updated", 2);
    const refused = await s.call(`/api/sessions/${id}`, {
      method: "PATCH",
      json: { approval_mode: "sometimes" },
    });
    expect(refused.status).toBe(400);
    await s.call(`/api/sessions/${id}`, { method: "PATCH", json: { title: "Last" } });
    const seen = await waitForServerEvent(firstTab, "session_updated", 3);
    expect(seen.map((e) => (e.session as { title: string }).title)).toEqual(["", "Renamed", "Last"]);
  });

  it("abort denies the waiting calls, ends the task as aborted and leaves no process running", async () => {
    const s = await sessionServer([
      { tool_calls: [exec("call_bg", "sleep 60", 250)] },
      { tool_calls: [exec("call_wait", "echo never")] },
      { text: "unreached" },
    ]);
    const id = await s.createSession({ approval_mode: "always-ask" });
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Start something long" } });
    await waitForServerEvent(stream, "approval_request");
    await s.call(`/api/sessions/${id}/approvals/call_bg`, { json: { decision: "allow" } });
    await waitForServerEvent(stream, "approval_request", 2);
    const listed = await readJson<{ processes: { pid: number; status: string }[] }>(
      await s.call(`/api/sessions/${id}/processes`),
    );
    expect(listed.processes).toMatchObject([{ status: "running" }]);
    const pid = listed.processes[0].pid;

    const aborted = await s.call(`/api/sessions/${id}/abort`, { json: {} });
    expect(aborted.status).toBe(200);
    expect(await readJson(aborted)).toEqual({
      aborted: true,
      task_state: { state: "idle", pendingSteering: 0 },
    });

    const messages = await waitForEnvelope(stream, "task_end");
    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "aborted" });
    const decision = messages.find(
      (m) =>
        payloadType(m) === "approval_decision" &&
        (m.payload as { tool_call_id: string }).tool_call_id === "call_wait",
    );
    expect(decision?.payload).toMatchObject({ decision: "deny" });
    expect(await readJson(await s.call(`/api/sessions/${id}/approvals`))).toEqual({ approvals: [] });
    await eventually(() => !isAlive(pid), "the background command to end");
    const after = await readJson<{ processes: { status: string }[] }>(
      await s.call(`/api/sessions/${id}/processes`),
    );
    expect(after.processes.every((p) => p.status !== "running")).toBe(true);
    // Nothing is left to abort.
    expect(await readJson(await s.call(`/api/sessions/${id}/abort`, { json: {} }))).toMatchObject({
      aborted: false,
    });
    expect(envelopes(stream.events).filter((m) => payloadType(m) === "task_end")).toHaveLength(1);
  });

  it("re-sends the waiting approval requests to a client that connects while they wait", async () => {
    const s = await sessionServer([{ tool_calls: [exec("call_late", "echo late")] }, { text: "done" }]);
    const id = await s.createSession({ approval_mode: "always-ask" });
    const first = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Run" } });
    await waitForServerEvent(first, "approval_request");

    const late = await s.stream(id);
    const events = await waitForServerEvent(late, "approval_request");
    expect(events[0]).toMatchObject({ tool_call: { payload: { tool_call_id: "call_late" } } });
    // The snapshot comes first: task state, then the waiting calls, then live events.
    expect(
      serverEvents(late.events)
        .map((e) => e.type)
        .slice(0, 2),
    ).toEqual(["task_state", "approval_request"]);
    expect(serverEvents(late.events)[0]).toMatchObject({ state: "running" });
    await s.call(`/api/sessions/${id}/approvals/call_late`, { json: { decision: "allow" } });
    await waitForEnvelope(late, "task_end");
  });
});
