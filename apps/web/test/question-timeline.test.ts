import { questionAnswered, taskEnd, toolCallOutput } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import type { MessagesResponse, PendingQuestion } from "../src/api/types.js";
import { SessionTimeline } from "../src/stream/timeline.js";

// The questions a chat view shows: seeded from GET .../messages, added by `question_request`,
// and gone once the stream reports the answer, the end of the ask call, or the end of the task.

const question = (id: string, toolCallId: string): PendingQuestion => ({
  question_id: id,
  text: `question ${id}`,
  tool_call_id: toolCallId,
  asked_at: "2026-01-01T00:00:00.000Z",
});

function seeded(questions: PendingQuestion[]): SessionTimeline {
  const timeline = new SessionTimeline();
  const response: MessagesResponse = {
    messages: [],
    partial: [],
    task_state: { state: "running", pendingSteering: 0 },
    approvals: [],
    questions,
  };
  timeline.seed(response);
  return timeline;
}

const ids = (timeline: SessionTimeline) => timeline.state().questions.map((q) => q.question_id);

describe("questions in the timeline", () => {
  it("keeps a seeded question, adds a streamed one once, and drops the one answered", () => {
    const timeline = seeded([question("q_1", "call_1")]);
    timeline.applyServerEvent({ type: "question_request", ...question("q_2", "call_2") });
    timeline.applyServerEvent({ type: "question_request", ...question("q_2", "call_2") });
    expect(ids(timeline)).toEqual(["q_1", "q_2"]);
    timeline.applyEnvelope(
      questionAnswered({ question_id: "q_1", from: "user", text: "yes", tool_call_id: "call_1" }),
    );
    expect(ids(timeline)).toEqual(["q_2"]);
  });

  it("drops a question whose ask call ended (timed out), and a child's answered question is not the user's", () => {
    const timeline = seeded([question("q_1", "call_1"), question("q_2", "call_2")]);
    timeline.applyEnvelope({
      ...questionAnswered({ question_id: "q_2", from: "root", text: "x" }),
      origin: ["child-session"],
    });
    expect(ids(timeline)).toEqual(["q_1", "q_2"]);
    timeline.applyEnvelope(toolCallOutput("call_1", "No answer to q_1 from user within 10 ms"));
    expect(ids(timeline)).toEqual(["q_2"]);
  });

  it("clears every question when the task ends", () => {
    const timeline = seeded([question("q_1", "call_1")]);
    timeline.applyEnvelope(taskEnd("aborted"));
    timeline.applyServerEvent({ type: "task_state", state: "idle", pendingSteering: 0 });
    expect(ids(timeline)).toEqual([]);
  });
});
