import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { allowAll, planMode } from "../../src/approval/policies.js";
import { chatMessages, collect, MODEL, RETRY_FAST, setup, traceRecords } from "../sdk/fixtures.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";

// Plan mode through the SDK: a real session against fake-llm over HTTP. Reading tools run, a
// write is refused without asking anyone, the answer becomes the proposed plan, and approving it
// runs the next task with writes allowed.

const start = cleanedUpAfterEach(setup);

const payloads = (messages: readonly OmniMessage[], type: string) =>
  messages.map((m) => m.payload as { type: string } & Record<string, unknown>).filter((p) => p.type === type);

const text = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content));

const PLAN = "1. Write notes.txt with the word hello.\n2. Read it back.";

describe("plan mode", () => {
  it("runs read_file, refuses write_file with a reason the model reads, and proposes the answer as the plan", async () => {
    const env = await start([]);
    writeFileSync(join(env.workspaceDir, "readme.md"), "the project\n");
    const target = join(env.workspaceDir, "notes.txt");
    env.llm.setScript([
      {
        tool_calls: [
          { id: "c1", name: "read_file", arguments: { file_path: join(env.workspaceDir, "readme.md") } },
        ],
      },
      {
        tool_calls: [{ id: "c2", name: "write_file", arguments: { file_path: target, content: "hello\n" } }],
      },
      { text: PLAN },
    ]);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const messages = await collect(session.run("Add a notes file", { approve: planMode }));

    expect(existsSync(target)).toBe(false);
    const decisions = payloads(messages, "approval_decision");
    expect(decisions.map((d) => [d.tool_call_id, d.decision])).toEqual([
      ["c1", "allow"],
      ["c2", "deny"],
    ]);
    const outputs = payloads(messages, "tool_call_output");
    expect(String(outputs[0]?.output)).toContain("the project");
    expect(String(outputs[1]?.output)).toContain(
      "plan mode: only reading tools run; write the plan as your answer",
    );

    // Every request tells the model it is in plan mode (and the block is not kept in the context).
    for (const n of [0, 1, 2]) {
      const chat = chatMessages(env.llm, n);
      expect(text(chat.at(-1)?.content)).toContain("[plan_mode]");
      expect(chat.slice(0, -1).some((m) => text(m.content).includes("[plan_mode]"))).toBe(false);
    }

    const proposed = payloads(messages, "plan_proposed");
    expect(proposed).toHaveLength(1);
    expect(proposed[0]?.text).toBe(PLAN);
    const kinds = messages.map((m) =>
      m.type === "session_meta" ? "meta" : (m.payload as { type: string }).type,
    );
    expect(kinds.indexOf("plan_proposed")).toBeGreaterThan(kinds.lastIndexOf("task_end"));
    expect(payloads(traceRecords(session.tracePath), "plan_proposed")).toHaveLength(1);
    const planFile = join(session.scratchpadDir, "PLAN.md");
    expect(readFileSync(planFile, "utf8")).toBe(`${PLAN}\n`);
    expect(statSync(planFile).mode & 0o777).toBe(0o600);
    expect(session.plan.proposed).toBe(PLAN);

    // Approving runs the plan in the chosen mode: now the write runs.
    env.llm.setScript([
      {
        tool_calls: [{ id: "c3", name: "write_file", arguments: { file_path: target, content: "hello\n" } }],
      },
      { text: "Done." },
    ]);
    const executed = await collect(session.approvePlan({ approve: allowAll }));
    await session.dispose();
    expect(readFileSync(target, "utf8")).toBe("hello\n");
    expect(payloads(executed, "plan_proposed")).toHaveLength(0);
    const first = chatMessages(env.llm, 3);
    const input = text(first.at(-1)?.content);
    expect(input).toContain("Carry out the approved plan");
    expect(input).toContain("Write notes.txt with the word hello.");
    expect(first.some((m) => text(m.content).includes("[plan_mode]"))).toBe(false);
  });

  it("approvePlan refuses plan mode and a session with no plan", async () => {
    const env = await start([]);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    expect(() => session.approvePlan({ approve: allowAll })).toThrow(/no proposed plan/);
    expect(() => session.approvePlan({ approve: planMode, plan: "x" })).toThrow(/plan mode runs nothing/);
    await session.dispose();
  });

  it("proposes no plan when the task did not complete", async () => {
    const env = await start([]);
    env.llm.setScript([{ text: "Half a plan", error: { status: 400, message: "bad request" } }]);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const messages = await collect(session.run("Plan it", { approve: planMode }));
    await session.dispose();
    expect(payloads(messages, "task_end")[0]?.status).not.toBe("completed");
    expect(payloads(messages, "plan_proposed")).toHaveLength(0);
  });
});
