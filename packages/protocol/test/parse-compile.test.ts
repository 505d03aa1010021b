import { expect, test } from "vitest";
import { emptyTokenCounts, parseEnvelope, tokenUsage, toolCall, userText } from "../src/index.js";
import { ENVELOPE_CHECKS_BEFORE_COMPILE } from "../src/parse.js";
import { viaJson, withField } from "./fixtures/every-kind.js";

// A process checks its first envelopes without zod's compiled fast path and the later ones with
// it (parse.ts says why): a record is accepted or refused, and reported, the same either way.
// This file's module state is its own, so the first checks below are the process's first.

const cases = (): unknown[] => {
  const usage = tokenUsage(emptyTokenCounts(), emptyTokenCounts());
  const call = viaJson(toolCall("exec_command", { cmd: "ls" }, "call_1"));
  return [
    call,
    { ...call, extra_field: "kept as it came" },
    viaJson(userText("hi")),
    withField(usage, "payload.request.total", "many"),
    withField(viaJson(userText("hi")), "payload.text", 42),
    withField(call, "payload.type", "no_such_kind"),
    { type: "response_item" },
    "not an object",
  ];
};

test("the first checks and those after the fast path is compiled give the same results", () => {
  const values = cases();
  const before = values.map((value) => parseEnvelope(viaJson(value)));
  for (let i = before.length; i < ENVELOPE_CHECKS_BEFORE_COMPILE; i++)
    parseEnvelope(viaJson(userText("pad")));
  const after = values.map((value) => parseEnvelope(viaJson(value)));
  expect(after).toEqual(before);
  expect(before.map((result) => result.ok)).toEqual([true, true, true, false, false, false, false, false]);
  expect(before[3]).toMatchObject({ ok: false, error: { path: "payload.request.total" } });
});
