import { type OmniMessage, PARTIAL_TYPES } from "@penguin/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import {
  CHILD_MODEL,
  collect,
  exec,
  inputSubagent,
  MODEL,
  RETRY_FAST,
  runSubagent,
  setup,
} from "./fixtures.js";

// docs/protocol.md: "A stream is start, then any number of deltas, then stop, then the complete
// message right away", told apart by origin, kind and tool_call_id. Children run concurrently
// and their messages reach the parent through its tool calls; whatever the interleaving, each
// session's (each origin's) streams must keep that framing.

const start = cleanedUpAfterEach(setup);

const COMPLETE_OF: Record<(typeof PARTIAL_TYPES)[number], string> = {
  partial_text: "text",
  partial_thinking: "thinking",
  partial_tool_call: "tool_call",
  partial_tool_call_output: "tool_call_output",
};

interface Payload {
  type: string;
  event_type?: string;
  tool_call_id?: string;
}

const originOf = (m: OmniMessage) => (m.origin ?? []).join("/");
const isPartialType = (type: string): type is (typeof PARTIAL_TYPES)[number] =>
  (PARTIAL_TYPES as readonly string[]).includes(type);

/**
 * Every way the stream breaks the framing, as readable lines (empty when it holds): a delta or
 * stop of a stream that never started, and a stop whose session's next message is not the
 * complete message of that stream.
 */
function framingViolations(messages: OmniMessage[]): string[] {
  const problems: string[] = [];
  const open = new Set<string>();
  const awaitingComplete = new Map<string, { kind: string; id: string | undefined; at: number }>();
  messages.forEach((message, index) => {
    const origin = originOf(message);
    const payload = message.payload as Payload;
    const waiting = awaitingComplete.get(origin);
    if (waiting) {
      awaitingComplete.delete(origin);
      if (payload.type !== waiting.kind || payload.tool_call_id !== waiting.id) {
        problems.push(
          `#${index} [${origin || "parent"}] ${payload.type} ${payload.event_type ?? ""} ${payload.tool_call_id ?? ""} came between the stop (#${waiting.at}) and the complete ${waiting.kind} ${waiting.id ?? ""}`,
        );
      }
    }
    if (message.type !== "model_msg" || !isPartialType(payload.type)) return;
    const kind = COMPLETE_OF[payload.type];
    const id =
      payload.type === "partial_text" || payload.type === "partial_thinking"
        ? undefined
        : payload.tool_call_id;
    const key = `${origin}|${kind}|${id ?? ""}`;
    if (payload.event_type === "start") {
      open.add(key);
      return;
    }
    if (!open.has(key)) {
      problems.push(
        `#${index} [${origin || "parent"}] ${payload.type} ${payload.event_type} of a stream that never started`,
      );
      return;
    }
    if (payload.event_type === "stop") {
      open.delete(key);
      awaitingComplete.set(origin, { kind, id, at: index });
    }
  });
  return problems;
}

/** A child's first answer: text and some commands, streamed in small pieces. */
const childTurnArb = fc.record({
  text: fc.string({ minLength: 1, maxLength: 24 }),
  commands: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 3 }),
  chunkSize: fc.integer({ min: 1, max: 6 }),
  delayMs: fc.integer({ min: 0, max: 3 }),
  /** How long run_subagent follows it before it moves to the background. */
  yieldMs: fc.constantFrom(30, 120, 300_000),
  /** How many input_subagent calls poll it at once in the parent's next turn (0 to 2). */
  polls: fc.integer({ min: 0, max: 2 }),
  pollMs: fc.constantFrom(40, 150, 20_000),
});

describe("stream framing with concurrent children", () => {
  it("keeps start, deltas, stop and the complete message together per session and per call, whatever the interleaving of children", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(childTurnArb, { minLength: 2, maxLength: 4 }),
        fc.integer({ min: 1, max: 3 }),
        async (children, parentCommandLines) => {
          // Children ask fake2 in whatever order they happen to run: every request takes the next
          // turn, so K turns with commands then K final answers end every child, whichever gets which.
          const childScript = [
            ...children.map((child, n) => ({
              text: child.text,
              chunk_size: child.chunkSize,
              chunk_delay_ms: child.delayMs,
              tool_calls: child.commands.map((lines, c) =>
                exec(`child_${n}_${c}`, `for i in $(seq ${lines}); do echo line-$i; sleep 0.01; done`),
              ),
            })),
            ...children.map((child, n) => ({
              text: `Child answer ${n}.`,
              chunk_size: child.chunkSize,
              chunk_delay_ms: child.delayMs,
            })),
          ];
          const env = await start(
            [
              {
                tool_calls: [
                  ...children.map((child, n) =>
                    runSubagent(`run_${n}`, {
                      prompt: `Task ${n}.`,
                      yield_time_ms: child.yieldMs,
                      ...CHILD_MODEL,
                    }),
                  ),
                  exec("parent_cmd", `for i in $(seq ${parentCommandLines}); do echo p-$i; sleep 0.01; done`),
                ],
              },
              // Subagents get their ids in call order: sub_1 is run_0's child.
              ...(children.some((child) => child.polls > 0)
                ? [
                    {
                      tool_calls: children.flatMap((child, n) =>
                        Array.from({ length: child.polls }, (_, p) =>
                          inputSubagent(`poll_${n}_${p}`, {
                            subagent_id: `sub_${n + 1}`,
                            yield_time_ms: child.pollMs,
                          }),
                        ),
                      ),
                    },
                  ]
                : []),
              { text: "All done.", chunk_size: 3 },
            ],
            { childScript },
          );
          const session = await env.agent.createSession({
            workspaceDir: env.workspaceDir,
            model: MODEL,
            retry: RETRY_FAST,
          });
          const yielded = await collect(session.run("Delegate.", { approve: allowAll }));
          await session.dispose();
          await env.cleanup();
          expect(yielded.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
          // The children did stream into the parent.
          expect(yielded.some((m) => (m.origin?.length ?? 0) > 0)).toBe(true);
          expect(framingViolations(yielded)).toEqual([]);
        },
      ),
      { numRuns: 6 },
    );
  }, 300_000);
});
