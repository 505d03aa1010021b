import { expect, it } from "vitest";
import { MAX_TITLE_CHARS } from "../src/limits.js";
import { titleFromMessage, titleFromRecords } from "../src/sessions/title.js";

it("an untitled session's title is the first non-blank line of its first message, trimmed and capped", () => {
  expect(titleFromMessage("Fix the build\nIt fails on CI")).toBe("Fix the build");
  expect(titleFromMessage("\r\n   \r\n  Windows lines  \r\nsecond")).toBe("Windows lines");
  expect(titleFromMessage("   \n\t\n")).toBe("");
  const long = titleFromMessage(`${"word ".repeat(60)}\nnext`);
  expect(long.length).toBeLessThanOrEqual(MAX_TITLE_CHARS);
  expect(long.endsWith(" ")).toBe(false);
  expect(long.startsWith("word word")).toBe(true);
});

it("an imported trace's title comes from its first user text message, not the assistant's", () => {
  const at = "2026-01-01T00:00:00.000Z";
  const records = [
    { timestamp: at, type: "model_msg", payload: { type: "text", role: "assistant", text: "Hello" } },
    { timestamp: at, type: "model_msg", payload: { type: "text", role: "user", text: "Deploy it\nnow" } },
    { timestamp: at, type: "model_msg", payload: { type: "text", role: "user", text: "Later" } },
  ] as unknown as Parameters<typeof titleFromRecords>[0];
  expect(titleFromRecords(records)).toBe("Deploy it");
  expect(titleFromRecords([])).toBe("");
});
