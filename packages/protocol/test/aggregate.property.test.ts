import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  assistantText,
  matchesComplete,
  modelMsg,
  type OmniMessage,
  PartialAggregator,
  type PartialEventType,
  parseEnvelopeLine,
  partialText,
  partialThinking,
  partialToolCall,
  partialToolCallOutput,
  type StreamedPayload,
  streamKeyOf,
  thinking,
  toolCall,
  toolCallOutput,
  userText,
  withOrigin,
} from "../src/index.js";

// Property: whatever the content (any unicode, astral characters, empty strings), however it is
// chunked (empty deltas, cuts inside a surrogate pair) and however streams interleave (several
// tool calls, subagent origins), the aggregator rebuilds exactly the original complete messages.

const anyText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constantFrom("", "😀", "a😀b", "\u{10FFFF}", "line\r\nbreak\u0000"),
);
const anyOrigin = fc.option(
  fc.array(fc.constantFrom("sub_a", "sub_b", "sub/c"), { minLength: 1, maxLength: 2 }),
  {
    nil: undefined,
  },
);

/** A complete message without its tool_call_id (assigned later, unique per message). */
const anyComplete = fc.oneof(
  fc.record({
    kind: fc.constant("text" as const),
    role: fc.constantFrom("user", "assistant"),
    text: anyText,
  }),
  fc.record({ kind: fc.constant("thinking" as const), text: anyText }),
  fc.record({ kind: fc.constant("tool_call" as const), name: fc.string({ maxLength: 12 }), text: anyText }),
  fc.record({
    kind: fc.constant("tool_call_output" as const),
    text: anyText,
    images: fc.array(fc.constantFrom("data:image/png;base64,iVBO", "https://example.test/a.png"), {
      maxLength: 2,
    }),
  }),
);
type Generated = { spec: GeneratedSpec; origin?: string[] };
type GeneratedSpec =
  | { kind: "text"; role: "user" | "assistant"; text: string }
  | { kind: "thinking"; text: string }
  | { kind: "tool_call"; name: string; text: string }
  | { kind: "tool_call_output"; text: string; images: string[] };

function toComplete(g: Generated, index: number): OmniMessage<StreamedPayload> {
  const id = `call_${index}`;
  const s = g.spec;
  let m: OmniMessage<StreamedPayload>;
  if (s.kind === "text") m = s.role === "user" ? userText(s.text) : assistantText(s.text);
  else if (s.kind === "thinking") m = thinking(s.text);
  else if (s.kind === "tool_call") m = toolCall(s.name, s.text, id);
  else {
    const p = toolCallOutput(id, s.text, "completed", s.images).payload;
    delete p.stop_reason; // partials carry no stop reason; the real complete does
    m = modelMsg(p);
  }
  let out = m;
  for (const child of [...(g.origin ?? [])].reverse()) out = withOrigin(out, child);
  return out;
}

/** Cuts at UTF-16 code units, so a surrogate pair may be split between two deltas. */
function cutCodeUnits(text: string, sizes: number[]): string[] {
  const out: string[] = [];
  let at = 0;
  for (const size of sizes) {
    out.push(text.slice(at, at + size));
    at = Math.min(text.length, at + size);
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

/** The partial events of one complete, built with the public builders as a producer would. */
function partialsOf(m: OmniMessage<StreamedPayload>, sizes: number[]): OmniMessage[] {
  const p = m.payload;
  const content =
    p.type === "text"
      ? p.text
      : p.type === "thinking"
        ? p.thinking
        : p.type === "tool_call"
          ? p.arguments
          : p.output;
  const fragments = cutCodeUnits(content, sizes);
  const event = (t: PartialEventType, f: string, last: boolean): OmniMessage => {
    switch (p.type) {
      case "text":
        return partialText(t, f, p.role);
      case "thinking":
        return partialThinking(t, f);
      case "tool_call":
        return partialToolCall(t, p.tool_call_id, f, t === "start" ? p.name : undefined);
      case "tool_call_output":
        return partialToolCallOutput(t, p.tool_call_id, f, last ? p.images : undefined);
    }
  };
  const needsImageDelta =
    p.type === "tool_call_output" && (p.images?.length ?? 0) > 0 && fragments.length === 0;
  if (needsImageDelta) fragments.push("");
  const events = [
    event("start", "", false),
    ...fragments.map((f, i) => event("delta", f, i === fragments.length - 1)),
    event("stop", "", false),
  ];
  return events.map((e) => ({ ...e, timestamp: m.timestamp, ...(m.origin ? { origin: m.origin } : {}) }));
}

/** Merges lanes at random while keeping each lane's own order. */
function interleave<T>(lanes: T[][], picks: number[]): T[] {
  const queues = lanes.map((l) => [...l]);
  const out: T[] = [];
  let step = 0;
  for (;;) {
    const open = queues.filter((q) => q.length > 0);
    if (open.length === 0) return out;
    const lane = open[(picks[step++] ?? 0) % open.length];
    out.push(lane.shift() as T);
  }
}

const contentOf = (p: StreamedPayload) =>
  p.type === "text"
    ? p.text
    : p.type === "thinking"
      ? p.thinking
      : p.type === "tool_call"
        ? p.arguments
        : p.output;

const scenario = fc.record({
  messages: fc.array(
    fc.record({
      spec: anyComplete as fc.Arbitrary<GeneratedSpec>,
      origin: anyOrigin,
    }) as fc.Arbitrary<Generated>,
    { minLength: 1, maxLength: 8 },
  ),
  chunkings: fc.array(fc.array(fc.nat({ max: 6 }), { maxLength: 8 }), { minLength: 8, maxLength: 8 }),
  picks: fc.array(fc.nat(), { maxLength: 120 }),
  sendRealCompletes: fc.boolean(),
});

describe("PartialAggregator (property)", () => {
  test("rebuilds every complete exactly from any chunking and interleaving", () => {
    fc.assert(
      fc.property(scenario, ({ messages, chunkings, picks, sendRealCompletes }) => {
        const completes = messages.map(toComplete);
        // One lane per stream key: messages of the same key stream one after another, as a
        // producer would; lanes of different keys interleave freely.
        const lanes = new Map<string, OmniMessage[]>();
        completes.forEach((c, i) => {
          const key = streamKeyOf(c) as string;
          const events = partialsOf(c, chunkings[i]);
          if (sendRealCompletes) events.push(c);
          lanes.set(key, [...(lanes.get(key) ?? []), ...events]);
        });
        const stream = interleave([...lanes.values()], picks);

        const agg = new PartialAggregator();
        const built: OmniMessage<StreamedPayload>[] = [];
        const open = new Map<string, string[]>(); // deltas of each open stream, as received
        const finished = new Map<string, string[]>(); // concatenated deltas of each stopped stream
        for (const sent of stream) {
          // Over the wire, as SSE or a trace would carry it.
          const parsed = parseEnvelopeLine(JSON.stringify(sent));
          expect(parsed.ok).toBe(true);
          if (!parsed.ok) return;
          const m = parsed.value;
          if (m.type === "model_msg" && m.payload.type.startsWith("partial_")) {
            const key = streamKeyOf(m) as string;
            const p = m.payload as {
              event_type: string;
              text?: string;
              thinking?: string;
              arguments?: string;
              output?: string;
            };
            if (p.event_type === "start") open.set(key, []);
            open.get(key)?.push(p.text ?? p.thinking ?? p.arguments ?? p.output ?? "");
            if (p.event_type === "stop") {
              finished.set(key, [...(finished.get(key) ?? []), (open.get(key) ?? []).join("")]);
              open.delete(key);
            }
          }
          built.push(...agg.push(m));
          // Mid-stream, the aggregator holds exactly what has streamed so far.
          expect(agg.snapshot().map((s) => [s.key, s.content])).toEqual(
            [...open].map(([key, fragments]) => [key, fragments.join("")]),
          );
        }

        expect(agg.snapshot()).toEqual([]);
        expect(built).toHaveLength(completes.length);
        for (const key of lanes.keys()) {
          const expected = completes.filter((c) => streamKeyOf(c) === key);
          const got = built.filter((b) => streamKeyOf(b) === key);
          expect(got.map((b) => ({ origin: b.origin, payload: b.payload }))).toEqual(
            expected.map((c) => ({ origin: c.origin, payload: c.payload })),
          );
          got.forEach((b, i) => {
            expect(matchesComplete(b, expected[i])).toBe(true);
          });
          expect(agg.wasStreamed(expected[expected.length - 1])).toBe(true);
          // The discipline itself: each stream's deltas concatenate to its complete, exactly.
          expect(finished.get(key)).toEqual(expected.map((c) => contentOf(c.payload)));
        }
      }),
      { numRuns: 300 },
    );
  });
});
