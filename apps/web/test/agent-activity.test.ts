import {
  agentLaunched,
  assistantText,
  messageDelivered,
  messageSent,
  questionAnswered,
  questionAsked,
  taskEnd,
  withOrigin,
} from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { activityOf, agentActivity } from "../src/stream/agent-activity.js";
import { SessionTimeline } from "../src/stream/timeline.js";

const at = "2026-12-02T10:00:00.000Z";
const message = (id: string, from: string, to: string, text: string) => ({
  message_id: id,
  from,
  to,
  text,
  sent_at: at,
});

describe("the agent activity of a session's timeline", () => {
  it("lists each message once, read once its delivery arrived, with questions and answers in stream order", () => {
    const timeline = new SessionTimeline();
    timeline.seed({
      messages: [
        agentLaunched({ agent_run_id: "sub_1", parent: "root", session_id: "s1", depth: 1, task: "Review" }),
        messageSent(message("msg_1", "root", "sub_1", "start")),
      ],
      partial: [],
      approvals: [],
      task_state: { state: "running", pendingSteering: 0 },
    });
    const seeded = timeline.state().agents;
    expect(seeded.messages).toEqual([
      { kind: "message", key: "message:msg_1", from: "root", to: "sub_1", text: "start", delivered: false },
    ]);

    // The child's records reach the root's stream relayed, with an origin.
    timeline.applyEnvelope(withOrigin(messageDelivered(message("msg_1", "root", "sub_1", "start")), "s1"));
    timeline.applyEnvelope(
      withOrigin(
        questionAsked({ question_id: "q_1", from: "sub_1", to: "root", text: "Which branch?" }),
        "s1",
      ),
    );
    timeline.applyEnvelope(
      withOrigin(questionAnswered({ question_id: "q_1", from: "root", text: "main" }), "s1"),
    );
    timeline.applyEnvelope(assistantText("unrelated"));
    const live = timeline.state().agents;
    expect(live.messages.map((m) => [m.kind, m.kind === "message" ? m.delivered : m.text])).toEqual([
      ["message", true],
      ["question", "Which branch?"],
      ["answer", "main"],
    ]);
    // Every agent event moves the revision the panel reloads on; other records do not.
    expect(live.revision).toBe(seeded.revision + 3);
    timeline.applyEnvelope(withOrigin(taskEnd("completed"), "s1"));
    expect(timeline.state().agents.revision).toBe(live.revision + 1);
  });

  it("an agent's own entries: what it sent and received, its questions and their answers", () => {
    const { messages } = agentActivity([
      messageSent(message("msg_1", "root", "sub_1", "to the lead")),
      messageSent(message("msg_2", "sub_1", "sub_2", "to the worker")),
      questionAsked({ question_id: "q_1", from: "sub_2", to: "sub_1", text: "Which file?" }),
      questionAnswered({ question_id: "q_1", from: "sub_1", text: "parser.ts" }),
      messageSent(message("msg_3", "sub_3", "root", "unrelated to the worker")),
    ]);
    const keys = (id: string) => activityOf(messages, id).map((m) => m.key);
    expect(keys("sub_2")).toEqual(["message:msg_2", "question:q_1", "answer:q_1"]);
    expect(keys("root")).toEqual(["message:msg_1", "message:msg_3"]);
    expect(keys("sub_1")).toEqual(["message:msg_1", "message:msg_2", "question:q_1", "answer:q_1"]);
  });
});
