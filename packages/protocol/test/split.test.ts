import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  assistantText,
  type OmniMessage,
  PartialAggregator,
  type PartialPayload,
  parseEnvelope,
  splitIntoPartials,
  thinking,
  toolCall,
  toolCallOutput,
  withOrigin,
} from "../src/index.js";

const fragmentOf = (m: OmniMessage<PartialPayload>) => {
  const p = m.payload;
  return p.type === "partial_text"
    ? p.text
    : p.type === "partial_thinking"
      ? p.thinking
      : p.type === "partial_tool_call"
        ? p.arguments
        : p.output;
};
const hasLoneSurrogate = (s: string) =>
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

describe("splitIntoPartials", () => {
  test("streams start, one delta per chunk, stop; sizes count code points", () => {
    const parts = splitIntoPartials(assistantText("a😀bcd"), [2, 0, 1]);
    expect(parts.map((p) => [p.payload.event_type, fragmentOf(p)])).toEqual([
      ["start", ""],
      ["delta", "a😀"],
      ["delta", ""],
      ["delta", "b"],
      ["delta", "cd"],
      ["stop", ""],
    ]);
    expect(parts[0].payload).toMatchObject({ role: "assistant" });
  });

  test("a single size repeats; empty content streams start and stop only", () => {
    expect(splitIntoPartials(thinking("abcde"), 2).map(fragmentOf)).toEqual(["", "ab", "cd", "e", ""]);
    expect(splitIntoPartials(thinking(""), 2).map((p) => p.payload.event_type)).toEqual(["start", "stop"]);
    // A size below 1 would never finish: it counts as 1.
    expect(splitIntoPartials(thinking("ab"), 0).map(fragmentOf)).toEqual(["", "a", "b", ""]);
  });

  test("a tool call's name rides on start and its id on every event", () => {
    const parts = splitIntoPartials(toolCall("exec_command", { cmd: "ls" }, "call_9"), 4);
    expect(parts[0].payload).toMatchObject({
      event_type: "start",
      name: "exec_command",
      tool_call_id: "call_9",
    });
    expect(parts.every((p) => (p.payload as { tool_call_id?: string }).tool_call_id === "call_9")).toBe(true);
  });

  test("a tool output's images arrive whole in the last delta, even with no text", () => {
    const images = ["data:image/png;base64,AAAA", "data:image/png;base64,BBBB"];
    const parts = splitIntoPartials(toolCallOutput("c", "0123456789", "completed", images), 4);
    const withImages = parts.filter((p) => (p.payload as { images?: string[] }).images);
    expect(withImages).toHaveLength(1);
    expect(withImages[0]).toBe(parts[parts.length - 2]);
    const empty = splitIntoPartials(toolCallOutput("c", "", "completed", images));
    expect(empty.map((p) => [p.payload.event_type, (p.payload as { images?: string[] }).images])).toEqual([
      ["start", undefined],
      ["delta", images],
      ["stop", undefined],
    ]);
  });

  test("keeps the complete's origin and timestamp on every event, and every event is a valid envelope", () => {
    const complete = withOrigin(withOrigin(assistantText("hi there"), "inner"), "outer");
    for (const p of splitIntoPartials(complete, 3)) {
      expect(p.origin).toEqual(["outer", "inner"]);
      expect(p.timestamp).toBe(complete.timestamp);
      expect(parseEnvelope(JSON.parse(JSON.stringify(p))).ok).toBe(true);
    }
  });

  test("never splits a surrogate pair, and the aggregator rebuilds the complete (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 60 }),
        fc.oneof(fc.integer({ min: 1, max: 7 }), fc.array(fc.nat({ max: 5 }), { maxLength: 10 })),
        (text, chunks) => {
          const complete = toolCallOutput("c1", text);
          delete complete.payload.stop_reason;
          const parts = splitIntoPartials(complete, chunks);
          expect(parts.map(fragmentOf).join("")).toBe(text);
          for (const p of parts) expect(hasLoneSurrogate(fragmentOf(p))).toBe(false);
          const agg = new PartialAggregator();
          const out = parts.flatMap((p) => agg.push(p));
          expect(out).toHaveLength(1);
          expect(out[0].payload).toEqual(complete.payload);
        },
      ),
      { numRuns: 300 },
    );
  });
});
