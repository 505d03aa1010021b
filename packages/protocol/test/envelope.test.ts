import { describe, expect, test } from "vitest";
import { parseEnvelope, parseEnvelopeLine, toolCall, userText } from "../src/index.js";

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
