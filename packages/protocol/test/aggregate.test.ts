import { describe, expect, test } from "vitest";
import {
  assistantText,
  eventMsg,
  matchesComplete,
  type OmniMessage,
  PartialAggregator,
  partialText,
  partialThinking,
  partialToolCall,
  partialToolCallOutput,
  requestEnd,
  streamKeyOf,
  thinking,
  toolCall,
  toolCallOutput,
  userText,
  withOrigin,
} from "../src/index.js";

/** Feeds every message and returns everything push returned, in order. */
function feed(aggregator: PartialAggregator, messages: OmniMessage[]): OmniMessage[] {
  return messages.flatMap((m) => aggregator.push(m));
}

describe("PartialAggregator", () => {
  test("builds an assistant text from start, deltas and stop", () => {
    const agg = new PartialAggregator();
    const out = feed(agg, [
      partialText("start"),
      partialText("delta", "Hel"),
      partialText("delta", ""),
      partialText("delta", "lo"),
      partialText("stop"),
    ]);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({
      type: "model_msg",
      payload: { type: "text", role: "assistant", text: "Hello" },
    });
    expect(out[0].origin).toBeUndefined();
    expect(agg.snapshot()).toEqual([]);
  });

  test("keeps the role of a user text stream", () => {
    const out = feed(new PartialAggregator(), [
      partialText("start", "", "user"),
      partialText("delta", "hi", "user"),
      partialText("stop", "", "user"),
    ]);
    expect(out[0].payload).toEqual({ type: "text", role: "user", text: "hi" });
  });

  test("builds a tool call with the name from start and the concatenated arguments", () => {
    const out = feed(new PartialAggregator(), [
      partialToolCall("start", "call_1", "", "exec_command"),
      partialToolCall("delta", "call_1", '{"cmd":'),
      partialToolCall("delta", "call_1", '"ls"}'),
      partialToolCall("stop", "call_1"),
    ]);
    expect(out[0].payload).toEqual({
      type: "tool_call",
      role: "assistant",
      name: "exec_command",
      arguments: '{"cmd":"ls"}',
      tool_call_id: "call_1",
    });
  });

  test("aggregates interleaved tool outputs independently, in the order they stop", () => {
    const agg = new PartialAggregator();
    const out = feed(agg, [
      partialToolCallOutput("start", "a"),
      partialToolCallOutput("start", "b"),
      partialToolCallOutput("delta", "a", "a1 "),
      partialToolCallOutput("delta", "b", "b1 "),
      partialToolCallOutput("delta", "a", "a2"),
      partialToolCallOutput("delta", "b", "", ["data:image/png;base64,AAAA"]),
      partialToolCallOutput("stop", "b"),
      partialToolCallOutput("stop", "a"),
    ]);
    expect(out.map((m) => m.payload)).toEqual([
      {
        type: "tool_call_output",
        role: "user",
        output: "b1 ",
        tool_call_id: "b",
        images: ["data:image/png;base64,AAAA"],
      },
      { type: "tool_call_output", role: "user", output: "a1 a2", tool_call_id: "a" },
    ]);
  });

  test("keeps a subagent's stream apart from the parent's and tags the complete with its origin", () => {
    const agg = new PartialAggregator();
    const out = feed(agg, [
      partialText("start"),
      withOrigin(partialText("start"), "child"),
      partialText("delta", "parent"),
      withOrigin(partialText("delta", "child"), "child"),
      withOrigin(partialText("stop"), "child"),
      partialText("stop"),
    ]);
    expect(out.map((m) => [m.origin, m.payload])).toEqual([
      [["child"], { type: "text", role: "assistant", text: "child" }],
      [undefined, { type: "text", role: "assistant", text: "parent" }],
    ]);
  });

  test("snapshot() reports open streams in start order with their content so far", () => {
    const agg = new PartialAggregator();
    feed(agg, [
      partialThinking("start"),
      partialThinking("delta", "hmm"),
      partialToolCall("start", "call_1", "", "read_file"),
      partialToolCall("delta", "call_1", '{"pa'),
    ]);
    const snap = agg.snapshot();
    expect(snap).toMatchObject([
      { kind: "partial_thinking", content: "hmm" },
      { kind: "partial_tool_call", tool_call_id: "call_1", name: "read_file", content: '{"pa' },
    ]);
    // Copies: changing the snapshot changes nothing inside.
    snap[0].content = "changed";
    expect(agg.snapshot()[0].content).toBe("hmm");
  });

  test("a new aggregator seeded from a snapshot finishes the stream exactly", () => {
    const first = new PartialAggregator();
    feed(first, [withOrigin(partialText("start"), "sub"), withOrigin(partialText("delta", "Hel"), "sub")]);
    // What a server would send a reconnecting UI: plain JSON.
    const seeded = new PartialAggregator(JSON.parse(JSON.stringify(first.snapshot())));
    const out = feed(seeded, [
      withOrigin(partialText("delta", "lo"), "sub"),
      withOrigin(partialText("stop"), "sub"),
    ]);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ origin: ["sub"], payload: { text: "Hello" } });
  });

  test("ignores deltas and stops of a stream it never saw start, since their prefix is missing", () => {
    const agg = new PartialAggregator();
    const out = feed(agg, [partialText("delta", "lo"), partialText("stop")]);
    expect(out).toEqual([]);
    expect(agg.snapshot()).toEqual([]);
  });

  test("a second start on an open stream replaces it (a retried request streams again)", () => {
    const out = feed(new PartialAggregator(), [
      partialText("start"),
      partialText("delta", "first attempt, cut off"),
      partialText("start"),
      partialText("delta", "second"),
      partialText("stop"),
    ]);
    expect(out.map((m) => m.payload)).toEqual([{ type: "text", role: "assistant", text: "second" }]);
  });

  test("request_end drops the request's unfinished model streams but not running tool outputs", () => {
    const agg = new PartialAggregator();
    feed(agg, [
      partialText("start"),
      partialText("delta", "cut"),
      withOrigin(partialText("start"), "child"),
      partialToolCallOutput("start", "call_1"),
      requestEnd("aborted"),
    ]);
    expect(agg.snapshot().map((s) => [s.kind, s.origin])).toEqual([
      ["partial_text", ["child"]],
      ["partial_tool_call_output", undefined],
    ]);
  });

  test("compaction_end drops an unfinished summary stream", () => {
    const agg = new PartialAggregator();
    feed(agg, [
      partialText("start"),
      partialText("delta", "summary so"),
      eventMsg({ type: "compaction_end", reason: "context", mode: "summarize", status: "failed" }),
    ]);
    expect(agg.snapshot()).toEqual([]);
  });

  test("a real complete closes its open stream, so a client that missed the stop shows nothing stale", () => {
    const agg = new PartialAggregator();
    feed(agg, [partialToolCallOutput("start", "call_1"), partialToolCallOutput("delta", "call_1", "par")]);
    expect(agg.push(toolCallOutput("call_1", "partial then denied", "aborted"))).toEqual([]);
    expect(agg.snapshot()).toEqual([]);
  });

  test("never echoes complete messages, events or session meta", () => {
    const agg = new PartialAggregator();
    expect(agg.push(userText("hi"))).toEqual([]);
    expect(agg.push(assistantText("hello"))).toEqual([]);
    expect(agg.push(requestEnd("completed"))).toEqual([]);
  });

  test("wasStreamed() recognises the real complete that follows a stream, and nothing else", () => {
    const agg = new PartialAggregator();
    feed(agg, [partialThinking("start"), partialThinking("delta", "plan"), partialThinking("stop")]);
    const real = thinking("plan", { fidelity: { signature: "sig" }, stop_reason: "completed" });
    expect(agg.wasStreamed(real)).toBe(true);
    expect(agg.wasStreamed(thinking("other plan"))).toBe(false);
    expect(agg.wasStreamed(withOrigin(real, "child"))).toBe(false);
    expect(agg.wasStreamed(assistantText("plan"))).toBe(false);
    agg.reset();
    expect(agg.wasStreamed(real)).toBe(false);
  });

  test("reset() forgets open streams", () => {
    const agg = new PartialAggregator();
    agg.push(partialText("start"));
    agg.reset();
    expect(agg.snapshot()).toEqual([]);
    expect(agg.push(partialText("stop"))).toEqual([]);
  });
});

describe("matchesComplete", () => {
  const built = feed(new PartialAggregator(), [
    partialToolCall("start", "call_1", "", "exec_command"),
    partialToolCall("delta", "call_1", "{}"),
    partialToolCall("stop", "call_1"),
  ])[0];

  test("ignores timestamp, stop_reason and fidelity", () => {
    const real = toolCall("exec_command", "{}", "call_1", {
      fidelity: { id: "x" },
      stop_reason: "completed",
    });
    real.timestamp = "2000-01-01T00:00:00.000Z";
    expect(matchesComplete(built, real)).toBe(true);
  });

  test("compares name, arguments, tool_call_id and origin", () => {
    expect(matchesComplete(built, toolCall("read_file", "{}", "call_1"))).toBe(false);
    expect(matchesComplete(built, toolCall("exec_command", "{ }", "call_1"))).toBe(false);
    expect(matchesComplete(built, toolCall("exec_command", "{}", "call_2"))).toBe(false);
    expect(matchesComplete(built, withOrigin(toolCall("exec_command", "{}", "call_1"), "sub"))).toBe(false);
  });

  test("compares the role of texts and the images of tool outputs", () => {
    expect(matchesComplete(userText("x"), assistantText("x"))).toBe(false);
    expect(matchesComplete(toolCallOutput("c", "o"), toolCallOutput("c", "o", "completed", []))).toBe(true);
    expect(matchesComplete(toolCallOutput("c", "o"), toolCallOutput("c", "o", "completed", ["img"]))).toBe(
      false,
    );
  });

  test("is false for messages that are not streamed kinds", () => {
    expect(matchesComplete(requestEnd("completed"), requestEnd("completed"))).toBe(false);
  });
});

describe("streamKeyOf", () => {
  test("gives a complete the key of the partials that stream it", () => {
    expect(streamKeyOf(toolCall("n", "{}", "c1"))).toBe(streamKeyOf(partialToolCall("delta", "c1")));
    expect(streamKeyOf(assistantText("x"))).toBe(streamKeyOf(partialText("stop")));
    expect(streamKeyOf(assistantText("x"))).not.toBe(streamKeyOf(withOrigin(partialText("stop"), "sub")));
    expect(streamKeyOf(toolCallOutput("c1", ""))).not.toBe(streamKeyOf(toolCall("n", "{}", "c1")));
  });

  test("is undefined for events and unstreamed kinds", () => {
    expect(streamKeyOf(requestEnd("completed"))).toBeUndefined();
  });
});
