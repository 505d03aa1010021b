import type { OmniMessage } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import {
  CHILD_MODEL,
  collect,
  inputSubagent,
  kind,
  MODEL,
  outputOf,
  RETRY_FAST,
  runSubagent,
  sessionRecords,
  setup,
  traceRecords,
} from "../subagent/fixtures.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";

// Messages between a session's root agent and a child run_subagent started, through the real
// tools: both sessions talk to fake-llm over HTTP (the child on the second server), and both
// traces are read back from disk.

const start = cleanedUpAfterEach(setup);
const EXTENDED = { tools: { preset: "extended" as const } };

const send = (id: string, to: string, text: string) => ({
  id,
  name: "send_message",
  arguments: { to, text },
});
const wait = (id: string, timeout_ms: number) => ({ id, name: "wait_messages", arguments: { timeout_ms } });

interface MessageEvent {
  type: string;
  message_id: string;
  from: string;
  to: string;
  text: string;
  sent_at: string;
}
/** The session's own message events (not its children's, relayed with an origin). */
const messageEvents = (records: OmniMessage[], type: "message_sent" | "message_delivered") =>
  records
    .filter((m) => m.origin === undefined && m.type === "event_msg" && kind(m) === type)
    .map((m) => m.payload as unknown as MessageEvent);

describe("messages between the root agent and a running child", () => {
  it("goes both ways, and each trace records what its agent sent and received with the same ids", async () => {
    const env = await start(
      [
        {
          tool_calls: [
            runSubagent("call_run", { prompt: "Wait for my message.", yield_time_ms: 0, ...CHILD_MODEL }),
          ],
        },
        { tool_calls: [send("call_ping", "sub_1", "ping from root")] },
        { tool_calls: [wait("call_wait", 20_000)] },
        { tool_calls: [inputSubagent("call_join", { subagent_id: "sub_1", yield_time_ms: 20_000 })] },
        { tool_calls: [send("call_late", "sub_1", "are you there?"), send("call_nobody", "sub_9", "hello")] },
        { text: "done" },
      ],
      {
        config: EXTENDED,
        childScript: [
          { tool_calls: [wait("child_wait", 20_000)] },
          { tool_calls: [send("child_pong", "root", "pong from child")] },
          { text: "child done" },
        ],
      },
    );
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const yielded = await collect(session.run("Talk to a child.", { approve: allowAll }));
    const childId = session.subagents[0]!.sessionId;
    const tracePath = session.tracePath;
    await session.dispose();

    expect(outputOf(yielded, "call_ping")).toMatchObject({ stop_reason: "completed" });
    const received = outputOf(yielded, "call_wait");
    expect(received.stop_reason).toBe("completed");
    expect(received.output).toMatch(
      /^1 message:\n\n\[msg_\d+\] from sub_1 at \d{4}-\d\d-\d\dT[^:]+:\d\d:\d\d/,
    );
    expect(received.output).toContain("pong from child");

    // The child's model read the root's message in its wait_messages output.
    const childRequests = env.llm2.requests.map((r) => r.rawBody);
    expect(childRequests.some((body) => body.includes("ping from root") && body.includes("from root"))).toBe(
      true,
    );

    // A child whose task ended is finished: it receives nothing, and the error says who can.
    const late = outputOf(yielded, "call_late");
    expect(late.stop_reason).toBe("failed");
    expect(late.output).toContain('"sub_1" has finished (its task ended) and receives no messages');
    const nobody = outputOf(yielded, "call_nobody");
    expect(nobody.stop_reason).toBe("failed");
    expect(nobody.output).toContain('unknown recipient "sub_9"; nothing was sent.');

    // Each side's trace: what it sent, what it was handed, connected by message_id.
    const rootTrace = traceRecords(tracePath);
    const childTrace = sessionRecords(env.location, childId);
    const [rootSent] = messageEvents(rootTrace, "message_sent");
    const [childDelivered] = messageEvents(childTrace, "message_delivered");
    expect(rootSent).toMatchObject({ from: "root", to: "sub_1", text: "ping from root" });
    expect(childDelivered).toEqual({ ...rootSent, type: "message_delivered", tool_call_id: "child_wait" });
    const [childSent] = messageEvents(childTrace, "message_sent");
    const [rootDelivered] = messageEvents(rootTrace, "message_delivered");
    expect(childSent).toMatchObject({ from: "sub_1", to: "root", text: "pong from child" });
    expect(rootDelivered).toEqual({ ...childSent, type: "message_delivered", tool_call_id: "call_wait" });
    expect(childSent!.message_id).not.toBe(rootSent!.message_id);
    // Refused sends leave no event.
    expect(messageEvents(rootTrace, "message_sent")).toHaveLength(1);
  });

  it("numbers a resumed session's messages past the ids its trace already holds", async () => {
    const env = await start(
      [
        {
          tool_calls: [
            runSubagent("call_run1", { prompt: "Say hello.", yield_time_ms: 20_000, ...CHILD_MODEL }),
          ],
        },
        { text: "first done" },
        {
          tool_calls: [
            runSubagent("call_run2", { prompt: "Say hello.", yield_time_ms: 20_000, ...CHILD_MODEL }),
          ],
        },
        { tool_calls: [wait("call_wait", 0)] },
        { text: "second done" },
      ],
      {
        config: EXTENDED,
        childScript: [
          { tool_calls: [send("c1_send", "root", "hello 1")] },
          { text: "c1 done" },
          { tool_calls: [send("c2_send", "root", "hello 2")] },
          { text: "c2 done" },
        ],
      },
    );
    const first = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    await collect(first.run("Start a child.", { approve: allowAll }));
    const sessionId = first.id;
    await first.dispose();
    const resumed = await env.agent.resumeSession(sessionId, { retry: RETRY_FAST });
    const yielded = await collect(resumed.run("Start another.", { approve: allowAll }));
    const children = resumed.subagents.map((child) => child.sessionId);
    await resumed.dispose();

    expect(outputOf(yielded, "call_wait").output).toContain("hello 2");
    expect(children).toHaveLength(2);
    // Each child's send is in its own trace.
    const sent = children
      .flatMap((child) => sessionRecords(env.location, child))
      .filter((m) => m.type === "event_msg" && kind(m) === "message_sent")
      .map((m) => (m.payload as unknown as MessageEvent).message_id);
    expect(sent).toEqual(["msg_1", "msg_2"]);
  });

  it("gives every agent the messaging tools and stop_agent whatever allowed_tools says", async () => {
    const env = await start([{ text: "ok" }], {
      config: { ...EXTENDED, allowed_tools: ["read_file"] },
    });
    const session = await env.agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
    expect(session.tools.map((t) => t.name).sort()).toEqual([
      "ask",
      "read_file",
      "send_message",
      "stop_agent",
      "wait_messages",
    ]);
    await session.dispose();
  });

  it("ends a wait at once when the task is interrupted", async () => {
    const env = await start([{ tool_calls: [wait("call_long", 600_000)] }, { text: "unused" }], {
      config: EXTENDED,
    });
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const controller = new AbortController();
    let startedAt = 0;
    const yielded = await collect(
      session.run("Wait for messages.", { approve: allowAll, signal: controller.signal }),
      (m) => {
        if (kind(m) === "tool_call" && startedAt === 0) {
          startedAt = Date.now();
          setTimeout(() => controller.abort(new Error("the user interrupted")), 100);
        }
      },
    );
    const endedAt = Date.now();
    await session.dispose();
    expect(startedAt).toBeGreaterThan(0);
    expect(endedAt - startedAt).toBeLessThan(3_000);
    expect(outputOf(yielded, "call_long").stop_reason).toBe("aborted");
    const end = yielded.find((m) => kind(m) === "task_end")?.payload as { status: string } | undefined;
    expect(end?.status).toBe("aborted");
  });
});
