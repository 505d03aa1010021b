import { describe, expect, it } from "vitest";
import {
  DEFAULT_COMPACTION_MAX_CONTEXT_LENGTH,
  DEFAULT_COMPACTION_PROMPT,
  defaultSystemConfig,
  parseSystemConfig,
  renderDefaultsYaml,
} from "../src/index.js";

describe("compaction settings", () => {
  it("default to 256000 tokens, no turn limit, summarize and the built-in prompt", () => {
    const { compaction } = defaultSystemConfig();
    expect(compaction).toEqual({ max_context_length: 256_000, max_session_turns: -1, mode: "summarize" });
    expect(DEFAULT_COMPACTION_MAX_CONTEXT_LENGTH).toBe(256_000);
    expect(DEFAULT_COMPACTION_PROMPT).toMatch(/\[summary\]/);
  });

  it("take the values written in system_config.yaml, a replaced prompt included", () => {
    const text =
      "compaction:\n  max_context_length: 32000\n  max_session_turns: 40\n  mode: discard\n  prompt: Sum it up.\n";
    const result = parseSystemConfig(text, "system_config.yaml");
    expect(result.ok && result.config.compaction).toEqual({
      max_context_length: 32_000,
      max_session_turns: 40,
      mode: "discard",
      prompt: "Sum it up.",
    });
  });

  it("point a wrong value at its line and column", () => {
    const text =
      "compaction:\n  max_context_length: 0\n  max_session_turns: 0\n  mode: forget\n  prompt: '  '\n  size: 3\n";
    const result = parseSystemConfig(text, "agents/a/system_config.yaml");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => [e.path, e.line, e.column])).toEqual([
      ["compaction.max_context_length", 2, 23],
      ["compaction.max_session_turns", 3, 22],
      ["compaction.mode", 4, 9],
      ["compaction.prompt", 5, 11],
      ["compaction.size", 6, 3],
    ]);
    expect(result.errors[1].message).toMatch(/-1 to never compact by turns/);
    expect(result.errors[2].message).toMatch(/"summarize"\|"discard"/);
    expect(result.errors[3].message).toMatch(/prompt is empty/);
  });

  it("are written out in full by the defaults YAML, which parses back", () => {
    const result = parseSystemConfig(renderDefaultsYaml(), "defaults.yaml");
    expect(result.ok && result.config.compaction.prompt).toBe(DEFAULT_COMPACTION_PROMPT);
  });
});
