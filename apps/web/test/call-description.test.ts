import { describe, expect, it } from "vitest";
import { callDescription } from "../src/stream/call-description.js";

describe("callDescription: the description argument while the arguments stream", () => {
  const full = JSON.stringify({
    description: 'List the "src" folder\nquickly',
    cmd: "ls src",
    yield_time_ms: 1000,
  });

  it("shows the description as soon as its value starts, growing with each fragment", () => {
    const seen = new Set<string | undefined>();
    for (let end = 0; end <= full.length; end++) seen.add(callDescription(full.slice(0, end)));
    // Before the value starts there is nothing to show, then every prefix of the text in order.
    expect(callDescription('{"descr')).toBeUndefined();
    expect(callDescription('{"description":')).toBeUndefined();
    expect(callDescription('{"description": "')).toBe("");
    expect(callDescription('{"description":"List the \\"s')).toBe('List the "s');
    expect(callDescription(full)).toBe('List the "src" folder\nquickly');
    const texts = [...seen].filter((t): t is string => t !== undefined);
    for (let i = 1; i < texts.length; i++) expect(texts[i].startsWith(texts[i - 1])).toBe(true);
  });

  it("shows run_command's purpose the same way, while it streams", () => {
    expect(callDescription('{"purpose":"Start the dev')).toBe("Start the dev");
    expect(callDescription('{"command":"npm run dev","purpose":"Start it"}')).toBe("Start it");
  });

  it("finds it after other arguments, and ignores the word in nested objects and in values", () => {
    expect(
      callDescription('{"cmd":"echo description","opts":{"description":"nested"},"description":"top'),
    ).toBe("top");
    expect(
      callDescription(
        '{"cmd":"echo {\\"description\\": 1}", "n": [1, {"description": "x"}], "description": "ok"}',
      ),
    ).toBe("ok");
    expect(callDescription('{"cmd":"echo hi"}')).toBeUndefined();
  });

  it("decodes escapes, and a cut inside an escape shows what came before it", () => {
    expect(callDescription('{"description":"tab\\there \\u00e9t\\u00E9"}')).toBe("tab\there été");
    expect(callDescription('{"description":"half \\')).toBe("half ");
    expect(callDescription('{"description":"half \\u00')).toBe("half ");
  });

  it("reads nothing out of arguments that are not an object or not JSON", () => {
    for (const text of [
      "",
      "   ",
      "[]",
      '"description"',
      "description: x",
      '{description: "x"}',
      '{"description": 5}',
      "{,,}",
    ]) {
      expect(callDescription(text), text).toBeUndefined();
    }
    expect(callDescription('{"a": tru')).toBeUndefined();
  });
});
