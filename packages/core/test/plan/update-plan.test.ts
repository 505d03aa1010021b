import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { createAgent } from "../../src/sdk/agent.js";
import { asksForSummary, COMPACT_PROMPT, contentText, summaryReplies } from "../compaction/support.js";
import { chatMessages, collect, MODEL, RETRY_FAST, setup, traceRecords } from "../sdk/fixtures.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";

// update_plan through the SDK: the model's checklist is a `plan_updated` event in the stream and
// the trace, a file in the scratchpad, a short answer to the model; a bad plan is refused with
// what to fix; and the plan comes back when the session is resumed and after a compaction.

const start = cleanedUpAfterEach(setup);

const payloads = (messages: readonly OmniMessage[], type: string) =>
  messages.map((m) => m.payload as { type: string } & Record<string, unknown>).filter((p) => p.type === type);

const STEPS = [
  { step: "Read the config", status: "done" },
  { step: "Fix the parser", status: "in_progress" },
  { step: "Run the tests", status: "pending" },
];

const planCall = (id: string, args: Record<string, unknown>) => ({
  tool_calls: [{ id, name: "update_plan", arguments: args }],
});

describe("update_plan", () => {
  it("records plan_updated, writes plan.json 0600, answers briefly, and the plan survives a resume", async () => {
    const env = await start([
      planCall("p1", { steps: STEPS, note: "parser next" }),
      { text: "Working on it." },
    ]);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const tools = session.tools.map((tool) => tool.name);
    expect(tools).toContain("update_plan");
    const messages = await collect(session.run("Fix the parser", { approve: allowAll }));
    await session.dispose();

    const updates = payloads(messages, "plan_updated");
    expect(updates).toEqual([{ type: "plan_updated", steps: STEPS, note: "parser next" }]);
    expect(payloads(traceRecords(session.tracePath), "plan_updated")).toHaveLength(1);
    expect(String(payloads(messages, "tool_call_output")[0]?.output)).toContain("plan updated: 1/3 done");
    const file = join(session.scratchpadDir, "plan.json");
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ steps: STEPS });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(session.plan.steps).toEqual(STEPS);

    // A new Agent object reads the session back from its trace alone.
    const again = await createAgent({ dataRoot: env.dataRoot, logger: { warn: () => {} } });
    const resumed = await again.resumeSession(session.id);
    expect(resumed.plan).toEqual({ steps: STEPS, note: "parser next" });
    await resumed.dispose();
  });

  it("refuses two steps in progress and an empty step, saying what to fix", async () => {
    const env = await start([
      planCall("p1", {
        steps: [
          { step: "a", status: "in_progress" },
          { step: "b", status: "in_progress" },
        ],
      }),
      planCall("p2", { steps: [{ step: "   ", status: "pending" }] }),
      { text: "ok" },
    ]);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const messages = await collect(session.run("Plan", { approve: allowAll }));
    await session.dispose();
    const outputs = payloads(messages, "tool_call_output");
    expect(outputs[0]?.output).toContain("At most one step may be in_progress (got 2)");
    expect(outputs[0]?.stop_reason).toBe("failed");
    expect(outputs[1]?.output).toContain("steps[0].step is empty");
    expect(payloads(messages, "plan_updated")).toHaveLength(0);
    expect(session.plan.steps).toBeUndefined();
  });

  it("carries the latest checklist into the compacted context", async () => {
    const summaries = summaryReplies([]);
    const env = await start([planCall("p1", { steps: STEPS }), { text: "Planned." }], {
      pick: summaries.pick,
      config: { compaction: { prompt: COMPACT_PROMPT } },
    });
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    await collect(session.run("Fix the parser", { approve: allowAll }));
    const compacted = await collect(session.compact());
    expect(payloads(compacted, "compaction_end")[0]?.status).toBe("completed");
    env.llm.setScript([{ text: "Continuing." }]);
    await collect(session.run("Go on", { approve: allowAll }));
    await session.dispose();

    const requests = env.llm.requests.filter((r) => r.protocol === "openai-chat");
    const last = requests.length - 1;
    expect(asksForSummary(requests[last]?.body as Record<string, unknown>)).toBe(false);
    const chat = chatMessages(env.llm, last);
    const summary = contentText(chat[1]);
    expect(summary).toMatch(/^\[context_summary\]/);
    expect(summary).toContain(
      "Current plan (update_plan):\n[x] Read the config\n[>] Fix the parser\n[ ] Run the tests",
    );
  });
});
