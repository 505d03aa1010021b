import { expect, it } from "vitest";
import { readJson } from "./helpers.js";
import { envelopes, payloadType, sessionServer, waitForServerEvent } from "./session-fixture.js";

it("a subagent's call waits for a human like its parent's, and its approval_request carries the child's session id as origin", async () => {
  // Parent and child share the model, so they consume the script in turn.
  const s = await sessionServer([
    {
      tool_calls: [
        {
          id: "call_spawn",
          name: "run_subagent",
          arguments: { description: "delegate", prompt: "Run echo from-the-child and report." },
        },
      ],
    },
    {
      tool_calls: [
        {
          id: "call_child",
          name: "exec_command",
          arguments: { description: "child command", cmd: "echo from-the-child", yield_time_ms: 30_000 },
        },
      ],
    },
    { text: "The child ran it." },
    { text: "The subagent reported back." },
  ]);
  const id = await s.createSession({ approval_mode: "always-ask" });
  const stream = await s.stream(id);
  await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Delegate a command" } });

  const [parentRequest] = await waitForServerEvent(stream, "approval_request");
  expect(parentRequest).toMatchObject({ tool_call: { payload: { tool_call_id: "call_spawn" } } });
  expect(parentRequest.origin).toBeUndefined();
  await s.call(`/api/sessions/${id}/approvals/call_spawn`, { json: { decision: "allow" } });

  const requests = await waitForServerEvent(stream, "approval_request", 2);
  const childRequest = requests[1];
  expect(childRequest).toMatchObject({ tool_call: { payload: { tool_call_id: "call_child" } } });
  expect(childRequest.origin).toEqual([expect.stringMatching(/^\d{8}-\d{6}-[a-z0-9]+$/)]);
  expect(childRequest.origin).not.toEqual([id]);
  const pending = await readJson<{ approvals: { tool_call_id: string; origin?: string[] }[] }>(
    await s.call(`/api/sessions/${id}/approvals`),
  );
  expect(pending.approvals).toEqual([
    expect.objectContaining({ tool_call_id: "call_child", origin: childRequest.origin }),
  ]);

  await s.call(`/api/sessions/${id}/approvals/call_child`, { json: { decision: "allow" } });
  // The child's task_end streams in too (with origin); wait for the parent's own.
  await stream.until((c) => envelopes(c.events).some((m) => payloadType(m) === "task_end" && !m.origin));
  const messages = envelopes(stream.events);
  const childOutput = envelopes(stream.events).find(
    (m) =>
      payloadType(m) === "tool_call_output" &&
      (m.payload as { tool_call_id: string }).tool_call_id === "call_child",
  );
  expect(childOutput?.origin).toEqual(childRequest.origin);
  expect(childOutput?.payload).toMatchObject({ output: expect.stringContaining("from-the-child") });
  expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
});
