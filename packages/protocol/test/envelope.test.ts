import { describe, expect, test } from "vitest";
import {
  emptyTokenCounts,
  parseEnvelope,
  parseEnvelopeLine,
  thinking,
  tokenUsage,
  toolCall,
  toolCallOutput,
  userText,
  withOrigin,
} from "../src/index.js";
import { viaJson, withField } from "./fixtures/every-kind.js";

describe("parseEnvelope", () => {
  test("accepts what the builders produce", () => {
    const m = toolCall("exec_command", { cmd: "ls" }, "call_1");
    const r = parseEnvelope(JSON.parse(JSON.stringify(m)));
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.value).toEqual(m);
  });

  test("names the path of the first bad field", () => {
    const m = JSON.parse(JSON.stringify(userText("hi")));
    m.payload.text = 42;
    const r = parseEnvelope(m);
    expect(r).toMatchObject({ ok: false, error: { path: "payload.text" } });
  });

  test("never throws on malformed JSON lines", () => {
    const r = parseEnvelopeLine('{"timestamp": "x", "type": ');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/not valid JSON/);
  });
});

describe("parseEnvelope errors", () => {
  const usage = tokenUsage(emptyTokenCounts(), emptyTokenCounts());

  test("names a nested field: payload.request.total", () => {
    const m = withField(usage, "payload.request.total", "many");
    expect(parseEnvelope(m)).toMatchObject({ ok: false, error: { path: "payload.request.total" } });
  });

  test("names an array element: origin[1], payload.images[0]", () => {
    const child = withField(withOrigin(withOrigin(userText("x"), "inner"), "outer"), "origin.1", "");
    expect(parseEnvelope(child)).toMatchObject({ ok: false, error: { path: "origin[1]" } });
    const out = withField(toolCallOutput("c", "o", "completed", ["img"]), "payload.images.0", null);
    expect(parseEnvelope(out)).toMatchObject({ ok: false, error: { path: "payload.images[0]" } });
  });

  test("an unknown envelope type names `type` and lists the known ones", () => {
    const r = parseEnvelope({ timestamp: "2026-01-01T00:00:00.000Z", type: "model_message", payload: {} });
    expect(r).toMatchObject({ ok: false, error: { path: "type" } });
    if (!r.ok) expect(r.error.message).toMatch(/session_meta.*model_msg.*event_msg/);
  });

  test("an unknown payload type names `payload.type`", () => {
    const r = parseEnvelope(withField(userText("x"), "payload.type", "txt"));
    expect(r).toMatchObject({ ok: false, error: { path: "payload.type" } });
    if (!r.ok) expect(r.error.message).toMatch(/tool_call_output/);
  });

  test("a missing timestamp names `timestamp`", () => {
    const { timestamp: _dropped, ...rest } = viaJson(userText("x"));
    expect(parseEnvelope(rest)).toMatchObject({ ok: false, error: { path: "timestamp" } });
  });

  test("a value that is not an object fails on the whole value", () => {
    for (const value of [null, undefined, 42, "text", [userText("x")]]) {
      expect(parseEnvelope(value)).toMatchObject({ ok: false, error: { path: "" } });
    }
  });

  test("parseEnvelopeLine never throws, whatever the line", () => {
    for (const line of ["", "   ", "null", "[]", "{", '{"type":"model_msg"}', "\u0000", "1e999999", "🐧"]) {
      const r = parseEnvelopeLine(line);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.message.length).toBeGreaterThan(0);
    }
  });
});

describe("compatibility with older traces", () => {
  const v1Meta = {
    timestamp: "2025-01-01T00:00:00.000Z",
    type: "session_meta",
    payload: { session_id: "s_old", provider: "openai", model_id: "m", system_prompt: "p", workspace: "/w" },
  };

  test("a session_meta without protocol_version reads as version 1", () => {
    const r = parseEnvelope(v1Meta);
    expect(r.ok && r.value.type === "session_meta" && r.value.payload.protocol_version).toBe(1);
  });

  test("fields a reader does not know are kept, in payloads, nested objects and envelopes", () => {
    const line = JSON.stringify({
      ...v1Meta,
      written_by: "penguin 9",
      payload: { ...v1Meta.payload, future: { a: [1] } },
    });
    const r = parseEnvelopeLine(line);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toMatchObject({ written_by: "penguin 9", payload: { future: { a: [1] } } });
    const u = parseEnvelope(
      withField(tokenUsage(emptyTokenCounts(), emptyTokenCounts()), "payload.request.reasoning", 12),
    );
    expect(u.ok && u.value.payload).toMatchObject({ request: { reasoning: 12 } });
  });

  test("provider replay data is carried through untouched", () => {
    const fidelity = {
      signature: "EqQBCkYIARgCKkA=",
      nested: { encrypted_content: "gAAAAB", order: [3, 1, 2] },
    };
    const m = viaJson(thinking("why", { fidelity }));
    const r = parseEnvelope(m);
    expect(r.ok && r.value.payload).toMatchObject({ fidelity });
    expect(JSON.stringify(r.ok && r.value.payload.fidelity)).toBe(JSON.stringify(fidelity));
  });
});
