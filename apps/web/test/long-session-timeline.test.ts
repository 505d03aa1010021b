import {
  assistantText,
  eventMsg,
  goalFinished,
  type OmniMessage,
  planProposed,
  planUpdated,
  requestBegin,
  requestEnd,
  splitIntoPartials,
  taskEnd,
  userText,
  withOrigin,
} from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { compactionText, goalText } from "../src/stream/long-session.js";
import { SessionTimeline, type TimelineItem } from "../src/stream/timeline.js";

function itemsOf(messages: OmniMessage[]): TimelineItem[] {
  const timeline = new SessionTimeline();
  timeline.seed({
    messages: [],
    partial: [],
    task_state: { state: "idle", pendingSteering: 0 },
    approvals: [],
  });
  for (const m of messages) timeline.applyEnvelope(m);
  return timeline.state().items;
}

const begin = eventMsg({ type: "compaction_begin", reason: "manual", mode: "summarize" });
const end = (status: "completed" | "failed", error?: string) =>
  eventMsg({
    type: "compaction_end",
    reason: "manual",
    mode: "summarize",
    status,
    ...(error ? { error_message: error } : {}),
  });

describe("compactions and goals in the timeline", () => {
  it("shows a compaction as one item, its summary inside it and not the new context's messages as chat", () => {
    const summary = assistantText("[summary]They asked for the logs; done.[/summary]");
    const items = itemsOf([
      userText("Show the logs."),
      assistantText("Here they are."),
      taskEnd("completed"),
      begin,
      requestBegin(),
      ...splitIntoPartials(summary, 4),
      summary,
      requestEnd("completed"),
      userText("[context_summary]\nThe conversation before this point was compacted…\n[/context_summary]", {
        sender: "harness",
      }),
      end("completed"),
      userText("And now?"),
    ]);
    expect(items.map((i) => i.kind)).toEqual(["text", "text", "status", "compaction", "text"]);
    const compaction = items[3] as Extract<TimelineItem, { kind: "compaction" }>;
    expect(compaction.compaction).toEqual({
      reason: "manual",
      mode: "summarize",
      status: "completed",
      summary: "They asked for the logs; done.",
    });
    expect(compactionText(compaction.compaction)).toBe(
      "Context compacted (on request): the conversation continues from a summary",
    );
    expect(items[4]).toMatchObject({ kind: "text", role: "user", text: "And now?" });
  });

  it("says a compaction is running until its end, and why one failed", () => {
    const running = itemsOf([userText("Hi."), begin]).at(-1) as Extract<TimelineItem, { kind: "compaction" }>;
    expect(compactionText(running.compaction)).toBe("Compacting the context (on request): summarizing…");
    const failed = itemsOf([userText("Hi."), begin, end("failed", "the summary came back empty")]).at(
      -1,
    ) as Extract<TimelineItem, { kind: "compaction" }>;
    expect(compactionText(failed.compaction)).toBe(
      "Compaction failed (on request): the summary came back empty; the context is as it was",
    );
  });

  it("leaves a subagent's compaction out of the parent's chat", () => {
    const items = itemsOf([
      userText("Hi."),
      withOrigin(begin, "child-1"),
      withOrigin(end("completed"), "child-1"),
    ]);
    expect(items.map((i) => i.kind)).toEqual(["text"]);
  });

  it("shows how a goal ended, with its rounds and tokens, and the harness's continuations as quiet lines", () => {
    const items = itemsOf([
      userText("Rewrite the parser."),
      assistantText("Round one."),
      userText("The goal is not complete yet. Continue with the next step.", { sender: "harness" }),
      assistantText("Wrapping up."),
      taskEnd("completed"),
      goalFinished({
        outcome: "budget_limited",
        rounds: 2,
        tokens_used: 1220,
        reason: "the goal's token budget of 1000 is spent (1100 used)",
      }),
    ]);
    expect(items[2]).toMatchObject({
      kind: "status",
      tone: "info",
      text: expect.stringMatching(/^The goal is not/),
    });
    const goal = items.at(-1) as Extract<TimelineItem, { kind: "goal" }>;
    expect(goalText(goal.goal)).toBe(
      "Goal stopped: its token budget is spent: the goal's token budget of 1000 is spent (1100 used) (2 rounds, 1,220 tokens)",
    );
    expect(goalText({ outcome: "complete", rounds: 1, tokensUsed: 5 })).toBe(
      "Goal complete (1 round, 5 tokens)",
    );
  });
});

describe("the plan in the timeline", () => {
  it("shows each checklist update whole, and a proposed plan, leaving a subagent's checklist out", () => {
    const steps = [
      { step: "Read the code", status: "done" as const },
      { step: "Fix it", status: "in_progress" as const },
    ];
    const items = itemsOf([
      userText("Fix it."),
      planUpdated(steps, "halfway"),
      withOrigin(planUpdated([{ step: "child step", status: "pending" }]), "child-1"),
      assistantText("The plan: fix it."),
      taskEnd("completed"),
      planProposed("The plan: fix it.", "/data/scratchpad/s1/PLAN.md"),
    ]);
    // The task's end is its usual status line; the proposal follows it.
    expect(items.map((i) => i.kind)).toEqual(["text", "plan", "text", "status", "plan-proposed"]);
    expect(items[1]).toMatchObject({ kind: "plan", steps, note: "halfway" });
    expect(items[4]).toMatchObject({ kind: "plan-proposed", path: "/data/scratchpad/s1/PLAN.md" });
  });
});
