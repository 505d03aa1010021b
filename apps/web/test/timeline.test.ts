import {
  approvalDecision,
  assistantText,
  type OmniMessage,
  PartialAggregator,
  requestBegin,
  requestEnd,
  splitIntoPartials,
  taskEnd,
  thinking,
  toolCall,
  toolCallOutput,
  userText,
  warningEvent,
} from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import type { MessagesResponse, PendingApproval, Session } from "../src/api/types.js";
import { SessionTimeline } from "../src/stream/timeline.js";

const call = toolCall("exec_command", { description: "List the files", cmd: "ls" }, "call_1");

/** What the engine streams for one task: each complete message preceded by its partials. */
const STREAM: OmniMessage[] = [
  userText("What is here?"),
  requestBegin(),
  ...splitIntoPartials(thinking("Look first."), 4),
  thinking("Look first."),
  ...splitIntoPartials(call, 5),
  call,
  requestEnd("completed"),
  approvalDecision("call_1", "allow", { kind: "mode", name: "allow-all" }),
  ...splitIntoPartials(toolCallOutput("call_1", "a.txt\nb.txt\n"), 3),
  toolCallOutput("call_1", "a.txt\nb.txt\n"),
  requestBegin(),
  ...splitIntoPartials(assistantText("Two files."), 3),
  assistantText("Two files."),
  requestEnd("completed"),
  taskEnd("completed"),
];

const isPartial = (m: OmniMessage) => m.type === "model_msg" && m.payload.type.startsWith("partial_");

/** The server's GET .../messages answer after the first `n` events: the trace and the open streams. */
function messagesAfter(n: number, extra: Partial<MessagesResponse> = {}): MessagesResponse {
  const aggregator = new PartialAggregator();
  for (const m of STREAM.slice(0, n)) aggregator.push(m);
  return {
    messages: STREAM.slice(0, n).filter((m) => !isPartial(m)),
    partial: aggregator.snapshot(),
    task_state: { state: n < STREAM.length ? "running" : "idle", pendingSteering: 0 },
    approvals: [],
    ...extra,
  };
}

function liveFromStart(): SessionTimeline {
  const timeline = new SessionTimeline();
  timeline.seed(messagesAfter(0));
  for (const m of STREAM) timeline.applyEnvelope(m);
  return timeline;
}

describe("SessionTimeline: history, live partials and reloads", () => {
  it("shows a whole task once: user text, thinking, the call with its description, decision and output, the answer", () => {
    const { items } = liveFromStart().state();
    expect(items.map((i) => i.kind)).toEqual(["text", "thinking", "tool", "text", "status"]);
    const tool = items[2];
    if (tool.kind !== "tool") throw new Error("tool item expected");
    expect(tool.call).toMatchObject({
      toolCallId: "call_1",
      name: "exec_command",
      description: "List the files",
      output: "a.txt\nb.txt\n",
      streaming: false,
      outputStreaming: false,
      decision: { decision: "allow", source: "mode: allow-all" },
    });
  });

  it("seeded at any point of the stream (a reload) and fed the rest, it ends exactly as a client that saw it all", () => {
    const expected = liveFromStart().state().items;
    for (let n = 0; n <= STREAM.length; n++) {
      const timeline = new SessionTimeline();
      timeline.seed(messagesAfter(n));
      for (const m of STREAM.slice(n)) timeline.applyEnvelope(m);
      expect(timeline.state().items, `reload after ${n} events`).toEqual(expected);
    }
  });

  it("shows the open streams of a seed as live items: the description of a call whose arguments are half there", () => {
    const cut = STREAM.findIndex((m) => m.type === "model_msg" && m.payload.type === "partial_tool_call") + 5;
    const timeline = new SessionTimeline();
    timeline.seed(messagesAfter(cut));
    const tool = timeline.state().items.find((i) => i.kind === "tool");
    expect(tool).toMatchObject({ call: { streaming: true, name: "exec_command" } });
    // Start and four 5-character fragments: {"description":"List
    expect(tool).toMatchObject({ call: { description: "List" } });
  });

  it("completes that reached the trace before the seed and also arrive live are shown once", () => {
    const expected = liveFromStart().state().items;
    for (const repeated of [1, 2]) {
      const n = STREAM.indexOf(call) + repeated;
      const timeline = new SessionTimeline();
      timeline.seed(messagesAfter(n));
      // The live stream starts before those records: the call (and the request_end after it).
      for (const m of STREAM.slice(STREAM.indexOf(call))) timeline.applyEnvelope(m);
      expect(timeline.state().items, `${repeated} repeated`).toEqual(expected);
    }
  });

  it("a live record equal to an older one is shown as soon as the next one shows it does not continue the seed", () => {
    const first = requestEnd("failed", { error_message: "busy" });
    const timeline = new SessionTimeline();
    timeline.seed({ ...messagesAfter(0), messages: [first, userText("again")] });
    timeline.applyEnvelope({ ...first });
    timeline.applyEnvelope(assistantText("answer"));
    expect(timeline.state().items.map((i) => i.kind)).toEqual(["status", "text", "status", "text"]);
  });

  it("keeps each waiting call once and drops it when its decision arrives or the task ends", () => {
    const pending: PendingApproval = {
      tool_call_id: "call_1",
      tool_call: call,
      requested_at: "2026-01-01T00:00:00Z",
    };
    const timeline = new SessionTimeline();
    timeline.seed(messagesAfter(STREAM.indexOf(call) + 1, { approvals: [pending] }));
    timeline.applyServerEvent({
      type: "approval_request",
      tool_call: call,
      requested_at: pending.requested_at,
    });
    expect(timeline.state().approvals.map((a) => a.tool_call_id)).toEqual(["call_1"]);
    expect(timeline.state().items.find((i) => i.kind === "tool")).toMatchObject({
      call: { waitingForApproval: true },
    });

    timeline.applyEnvelope(approvalDecision("call_1", "deny", { kind: "human" }));
    expect(timeline.state().approvals).toEqual([]);

    timeline.applyServerEvent({
      type: "approval_request",
      tool_call: call,
      requested_at: pending.requested_at,
    });
    expect(timeline.state().approvals).toHaveLength(1);
    timeline.applyServerEvent({ type: "task_state", state: "idle", pendingSteering: 0 });
    expect(timeline.state().approvals).toEqual([]);
    expect(timeline.state().task.state).toBe("idle");
  });

  it("asks for a reload on resync_required and ignores server events it does not know", () => {
    const timeline = new SessionTimeline();
    expect(timeline.applyServerEvent({ type: "resync_required", reason: "gap_too_old" })).toBe("resync");
    expect(timeline.applyServerEvent({ type: "something_new", value: 1 })).toBeUndefined();
  });

  it("takes the session row of session_updated (a mode changed in another tab) and keeps it across a reseed", () => {
    const timeline = new SessionTimeline();
    timeline.seed(messagesAfter(0));
    expect(timeline.state().session).toBeUndefined();
    const row: Session = {
      id: "20261130-120000-abcd",
      user_id: "u1",
      title: "Work",
      agent_id: "default",
      workspace: "/w",
      provider: "fake",
      model_id: "fake-model",
      execution_profile: "native",
      approval_mode: "allow-all",
      state: "idle",
      created_at: "2026-11-30T12:00:00.000Z",
      updated_at: "2026-11-30T12:01:00.000Z",
    };
    expect(timeline.applyServerEvent({ type: "session_updated", session: row })).toBeUndefined();
    expect(timeline.state().session?.approval_mode).toBe("allow-all");
    timeline.applyServerEvent({ type: "session_updated", session: { ...row, approval_mode: "deny-all" } });
    expect(timeline.state().session?.approval_mode).toBe("deny-all");
    timeline.seed(messagesAfter(3));
    expect(timeline.state().session?.approval_mode).toBe("deny-all");
  });

  it("reports failed requests and tasks as status lines with their reason", () => {
    const timeline = new SessionTimeline();
    timeline.seed(messagesAfter(0));
    timeline.applyEnvelope(requestEnd("failed", { error_message: "rate limited", retry_in_ms: 2000 }));
    timeline.applyEnvelope(taskEnd("failed", "the model kept failing"));
    expect(timeline.state().items).toMatchObject([
      { kind: "status", tone: "error", text: "Model request failed: rate limited (retrying in 2000 ms)" },
      { kind: "status", tone: "error", text: "Task failed: the model kept failing" },
    ]);
  });

  it("shows a skill warning as a status line, so a web user sees what the terminal prints", () => {
    const timeline = new SessionTimeline();
    timeline.seed(messagesAfter(0));
    timeline.applyEnvelope(
      warningEvent("skills", "skill skipped: /w/.agents/skills/a/SKILL.md: missing name"),
    );
    expect(timeline.state().items).toMatchObject([
      {
        kind: "status",
        tone: "error",
        text: "Warning: skill skipped: /w/.agents/skills/a/SKILL.md: missing name",
      },
    ]);
  });
});
