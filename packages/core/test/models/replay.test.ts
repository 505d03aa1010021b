import { userText } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { CassetteError, loadCassette } from "../../src/models/cassette.js";
import { createReplayModel } from "../../src/models/replay.js";
import { collect, deltasByStream, request, tempFile } from "./helpers.js";

function cassette(yaml: string): string {
  return tempFile("cassette.yaml", yaml);
}

describe("replay model: normal turns", () => {
  it("streams thinking, text and tool calls as partials, each followed by its complete message", async () => {
    const file = cassette(`
turns:
  - thinking: "Let me look at the file first."
    thinking_signature: "sig-abc"
    text: "Reading it now."
    chunk_size: 5
    tool_calls:
      - name: read_file
        arguments: { path: "a.txt" }
      - id: explicit_id
        name: read_file
        arguments: '{"path": "b.txt"}'
`);
    const model = createReplayModel({ file });
    const result = await collect(model, request({ messages: [userText("go")] }));

    expect(result.outcome.status).toBe("completed");
    expect(result.complete).toEqual([
      expect.objectContaining({
        type: "thinking",
        thinking: "Let me look at the file first.",
        fidelity: { signature: "sig-abc" },
      }),
      expect.objectContaining({ type: "text", role: "assistant", text: "Reading it now." }),
      expect.objectContaining({
        type: "tool_call",
        name: "read_file",
        arguments: '{"path":"a.txt"}',
        tool_call_id: "call_0_0",
      }),
      expect.objectContaining({
        type: "tool_call",
        name: "read_file",
        arguments: '{"path": "b.txt"}',
        tool_call_id: "explicit_id",
      }),
    ]);
    // start -> delta* -> stop, then the complete message, for every block in order.
    const kinds = result.payloads.map((p) => `${p.type}${"event_type" in p ? `:${p.event_type}` : ""}`);
    expect(kinds.slice(0, 9)).toEqual([
      "partial_thinking:start",
      ...Array(6).fill("partial_thinking:delta"),
      "partial_thinking:stop",
      "thinking",
    ]);
    // Chunked by chunk_size (5 code points), and the deltas concatenate to the complete text.
    const textDeltas = result.payloads.filter((p) => p.type === "partial_text" && p.event_type === "delta");
    expect(textDeltas.map((p) => (p as { text: string }).text)).toEqual(["Readi", "ng it", " now."]);
    expect([...deltasByStream(result.payloads).values()]).toEqual([
      "Let me look at the file first.",
      "Reading it now.",
      '{"path":"a.txt"}',
      '{"path": "b.txt"}',
    ]);
  });

  it("consumes one turn per request, in order, and reports scripted usage", async () => {
    const file = cassette(`
turns:
  - text: first
    usage: { input_tokens: 100, output_tokens: 7, cache_read_tokens: 50, cache_write_tokens: 10 }
  - text: second
`);
    const model = createReplayModel({ file });
    const first = await collect(model, request());
    const second = await collect(model, request({ messages: [userText("x".repeat(400))] }));
    expect(first.complete).toEqual([expect.objectContaining({ text: "first" })]);
    expect(first.outcome.usage).toEqual({ cache_read: 50, cache_write: 10, output: 7, total: 167 });
    expect(second.complete).toEqual([expect.objectContaining({ text: "second" })]);
    // Estimated from the request (~4 characters a token) when the turn gives no usage.
    expect(second.outcome.usage.output).toBe(2);
    expect(second.outcome.usage.total).toBeGreaterThan(100);
  });

  it("reports an exhausted cassette as a failed, permanent outcome naming the file and request", async () => {
    const file = cassette("turns:\n  - text: only one\n");
    const model = createReplayModel({ file });
    await collect(model, request());
    const result = await collect(model, request());
    expect(result.messages).toEqual([]);
    expect(result.outcome).toMatchObject({
      status: "failed",
      permanent: true,
      errorMessage: `cassette ${file} has no turn left for request 2`,
    });
  });

  it("makes repeated tool call ids unique within the session", async () => {
    const file = cassette(`
turns:
  - tool_calls:
      - { id: read_file, name: read_file, arguments: { path: a } }
      - { id: read_file, name: read_file, arguments: { path: b } }
  - tool_calls:
      - { id: read_file, name: read_file, arguments: { path: c } }
`);
    const model = createReplayModel({ file });
    const first = await collect(model, request());
    const second = await collect(model, request());
    const ids = [...first.complete, ...second.complete].map(
      (p) => (p as { tool_call_id: string }).tool_call_id,
    );
    expect(ids).toEqual(["read_file", "read_file#2", "read_file#3"]);
  });
});

describe("replay model: failure turns", () => {
  it.each([
    [401, "auth", undefined],
    [403, "auth", undefined],
    [429, "failed", 3000],
    [500, "failed", undefined],
    [529, "failed", undefined],
  ])("maps a scripted HTTP %i to outcome %s", async (status, expected, retryAfterMs) => {
    const retry = status === 429 ? ", retry_after: 3" : "";
    const file = cassette(`turns:\n  - error: { status: ${status}, message: "scripted"${retry} }\n`);
    const result = await collect(createReplayModel({ file }), request());
    expect(result.messages).toEqual([]);
    expect(result.outcome.status).toBe(expected);
    expect(result.outcome.retryAfterMs).toBe(retryAfterMs);
    expect(result.outcome.errorMessage).toContain(`HTTP ${status}: scripted`);
  });

  it("a cut stream fails after yielding the partial output as a failed text", async () => {
    const file = cassette(`turns:\n  - { text: "abcdefghij", chunk_size: 2, cut: { after_chunks: 3 } }\n`);
    const result = await collect(createReplayModel({ file }), request());
    expect(result.outcome.status).toBe("failed");
    expect(result.outcome.errorMessage).toContain("cut after 3 chunk(s)");
    expect(result.complete).toEqual([
      expect.objectContaining({ type: "text", text: "abcdef", stop_reason: "failed" }),
    ]);
  });

  it("an unfinished tool call is closed but never completed", async () => {
    const file = cassette(`
turns:
  - text: "ok"
    chunk_size: 4
    tool_calls: [{ name: read_file, arguments: { path: "some/long/path.txt" } }]
    cut: { after_chunks: 2 }
`);
    const result = await collect(createReplayModel({ file }), request());
    expect(result.outcome.status).toBe("failed");
    expect(result.complete.map((p) => p.type)).toEqual(["text"]);
    const last = result.payloads.at(-1) as { type: string; event_type: string };
    expect(last).toMatchObject({ type: "partial_tool_call", event_type: "stop" });
  });

  it("a malformed chunk ends the request as malformed", async () => {
    const file = cassette(
      `turns:\n  - { text: "hello world", chunk_size: 4, malformed: { after_chunks: 1 } }\n`,
    );
    const result = await collect(createReplayModel({ file }), request());
    expect(result.outcome.status).toBe("malformed");
    expect(result.complete).toEqual([expect.objectContaining({ text: "hell", stop_reason: "malformed" })]);
  });

  it("a failure after more chunks than the answer has comes after the last chunk", async () => {
    const file = cassette(`turns:\n  - { text: "hi", cut: { after_chunks: 10 } }\n`);
    const result = await collect(createReplayModel({ file }), request());
    expect(result.outcome.status).toBe("failed");
    expect(result.complete).toEqual([expect.objectContaining({ text: "hi", stop_reason: "failed" })]);
  });

  it("a stall waits until the request is aborted", async () => {
    const file = cassette(`turns:\n  - { text: "abcdef", chunk_size: 2, stall: { after_chunks: 1 } }\n`);
    const controller = new AbortController();
    const model = createReplayModel({ file });
    const pending = collect(model, request({ signal: controller.signal }));
    setTimeout(() => controller.abort(), 50);
    const result = await pending;
    expect(result.outcome.status).toBe("aborted");
    expect(result.complete).toEqual([expect.objectContaining({ text: "ab", stop_reason: "aborted" })]);
  });

  it("a stall ends as timeout after the stall timeout", async () => {
    const file = cassette(`turns:\n  - { text: "abcdef", stall: { after_chunks: 0 } }\n`);
    const result = await collect(createReplayModel({ file, stallTimeoutMs: 30 }), request());
    expect(result.outcome.status).toBe("timeout");
    expect(result.messages).toEqual([]);
  });

  it("an already aborted request does not consume a turn", async () => {
    const file = cassette("turns:\n  - text: kept\n");
    const model = createReplayModel({ file });
    const aborted = await collect(model, request({ signal: AbortSignal.abort() }));
    expect(aborted.outcome.status).toBe("aborted");
    const next = await collect(model, request());
    expect(next.complete).toEqual([expect.objectContaining({ text: "kept" })]);
  });
});

describe("loadCassette", () => {
  it("reports invalid YAML with file, line and column", () => {
    const file = cassette("turns:\n  - text: [unclosed\n");
    expect(() => loadCassette(file)).toThrow(CassetteError);
    try {
      loadCassette(file);
    } catch (error) {
      const problem = (error as CassetteError).problems[0]!;
      expect(problem.line).toBeGreaterThanOrEqual(2);
      expect(problem.column).toBeGreaterThanOrEqual(1);
      expect((error as Error).message).toContain(`${file}:${problem.line}:${problem.column}`);
    }
  });

  it("reports a schema violation with the field path and its position", () => {
    const file = cassette("turns:\n  - text: fine\n  - error:\n      status: 200\n");
    try {
      loadCassette(file);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CassetteError);
      const problem = (error as CassetteError).problems[0]!;
      expect(problem).toMatchObject({ path: "turns.1.error.status", line: 4, column: 15 });
      expect((error as Error).message).toContain(`${file}:4:15: turns.1.error.status:`);
    }
  });

  it("locates a missing field at its parent", () => {
    const file = cassette("turns:\n  - tool_calls:\n      - arguments: {}\n");
    try {
      loadCassette(file);
      expect.unreachable();
    } catch (error) {
      expect((error as CassetteError).problems[0]).toMatchObject({
        path: "turns.0.tool_calls.0.name",
        line: 3,
      });
    }
  });

  it("reports a missing file", () => {
    expect(() => loadCassette("/nonexistent/cassette.yaml")).toThrow(/cannot read the file/);
  });

  it("createReplayModel refuses an invalid cassette with the same error", () => {
    const file = cassette("turns:\n  - {}\n");
    expect(() => createReplayModel({ file })).toThrow(
      /a turn needs text, thinking, tool_calls, or a failure/,
    );
  });
});
