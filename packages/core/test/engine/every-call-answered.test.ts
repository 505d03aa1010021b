import { isPartialMessage, type OmniMessage } from "@penguin/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createTestSession, type TestTurn, testModel } from "./harness.js";

// Random scripts: turns of calls to tools that succeed, sleep, throw, do not exist or get
// malformed arguments; random approvals (allow, deny, throw); random failed requests; and an
// interrupt at a random point. Whatever happens, every call gets exactly one output.

const callArb = fc.oneof(
  fc.record({
    name: fc.constant("echo"),
    args: fc.record({ text: fc.string({ maxLength: 8 }), ms: fc.integer({ min: 0, max: 15 }) }),
  }),
  fc.record({ name: fc.constant("fail"), args: fc.record({ text: fc.string({ maxLength: 4 }) }) }),
  fc.record({ name: fc.constant("missing_tool"), args: fc.constant({}) }),
  fc.record({ name: fc.constant("echo"), args: fc.constant('{"text": ') }),
);
const turnArb: fc.Arbitrary<TestTurn> = fc.record(
  {
    text: fc.string({ maxLength: 12 }),
    calls: fc.array(callArb, { maxLength: 3 }),
    fail: fc.constantFrom<TestTurn["fail"]>(undefined, undefined, undefined, "failed"),
    delayMs: fc.integer({ min: 0, max: 3 }),
  },
  { requiredKeys: ["calls"] },
);
const approvalArb = fc.array(fc.constantFrom("allow", "deny", "throw"), { minLength: 1, maxLength: 6 });

describe("every tool call gets exactly one tool_call_output", () => {
  it("holds over random scripts, approvals, failures and interrupts", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(turnArb, { minLength: 1, maxLength: 4 }),
        approvalArb,
        fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
        async (turns, answers, interruptAfter) => {
          const { adapter, requests } = testModel([...turns, { text: "end" }]);
          const s = createTestSession(adapter);
          let n = 0;
          const approve = async () => {
            const answer = answers[n++ % answers.length];
            if (answer === "throw") throw new Error("approval UI crashed");
            return answer as "allow" | "deny";
          };
          const controller = new AbortController();
          let seen = 0;
          try {
            const run = await s.run("go", approve, {
              signal: controller.signal,
              onMessage: () => {
                if (interruptAfter !== undefined && ++seen === interruptAfter) controller.abort();
              },
            });
            const calls = ids(run.messages, "tool_call");
            const outputs = ids(run.messages, "tool_call_output");
            const decisions = run.messages.filter((m) => m.payload.type === "approval_decision");
            expect([...outputs].sort()).toEqual([...calls].sort());
            expect(new Set(outputs).size).toBe(outputs.length);
            expect(decisions).toHaveLength(calls.length);
            const ends = run.messages.filter((m) => m.payload.type === "task_end");
            expect(ends).toHaveLength(1);
            expect(run.messages.at(-1)).toBe(ends[0]);
            expect(run.recorded).toEqual(run.messages.filter((m) => !isPartialMessage(m)));
            // Every request extends the one before it.
            for (let i = 1; i < requests.length; i++) {
              expect(requests[i].messages.slice(0, requests[i - 1].messages.length)).toEqual(
                requests[i - 1].messages,
              );
            }
            // Every call the model context holds is followed by its output, in call order.
            const context = s.state.messages;
            const contextCalls = context
              .filter((m) => m.payload.type === "tool_call")
              .map((m) => (m.payload as { tool_call_id: string }).tool_call_id);
            const contextOutputs = context
              .filter((m) => m.payload.type === "tool_call_output")
              .map((m) => (m.payload as { tool_call_id: string }).tool_call_id);
            expect(contextOutputs).toEqual(contextCalls);
          } finally {
            await s.dispose();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

function ids(messages: OmniMessage[], type: "tool_call" | "tool_call_output"): string[] {
  return messages
    .filter((m) => m.type === "model_msg" && m.payload.type === type && m.origin === undefined)
    .map((m) => (m.payload as { tool_call_id: string }).tool_call_id);
}
