import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadScript, parseScript, ScriptLoadError } from "../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "fake-llm-script-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeScript(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function loadError(input: string): ScriptLoadError {
  try {
    loadScript(input);
  } catch (error) {
    if (error instanceof ScriptLoadError) return error;
    throw error;
  }
  throw new Error("expected loadScript to fail");
}

describe("loadScript", () => {
  it("loads a YAML file and fills in the schema's defaults", () => {
    const path = writeScript(
      "ok.yaml",
      [
        "description: two turns",
        "turns:",
        "  - thinking: plan",
        "    text: hello",
        "    tool_calls:",
        "      - name: read_file",
        "        arguments: { path: a.txt }",
        "  - error: { status: 429, retry_after: 2 }",
      ].join("\n"),
    );
    const script = loadScript(path);
    expect(script.version).toBe(1);
    expect(script.turns).toHaveLength(2);
    expect(script.turns[0]!.tool_calls![0]).toEqual({ name: "read_file", arguments: { path: "a.txt" } });
    expect(script.turns[1]!.error).toEqual({ status: 429, retry_after: 2 });
  });

  it("loads YAML text given inline", () => {
    const script = loadScript("turns:\n  - text: inline\n  - stall: {}\n");
    expect(script.turns[0]!.text).toBe("inline");
    expect(script.turns[1]!.stall).toEqual({ after_chunks: 0 });
  });

  it("names the file and the field path of an invalid value", () => {
    const path = writeScript("bad-status.yaml", "turns:\n  - text: ok\n  - error: { status: 200 }\n");
    const error = loadError(path);
    expect(error.source).toBe(path);
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/turns\.1\.error\.status: .*400/);
  });

  it("rejects a turn that has neither content nor a failure", () => {
    const error = loadError("turns:\n  - label: empty\n");
    expect(error.message).toContain("inline YAML");
    expect(error.message).toMatch(/turns\.0: a turn needs text, thinking, tool_calls, or a failure/);
  });

  it("reports a YAML syntax error with its position", () => {
    const path = writeScript("syntax.yaml", "turns:\n  - text: [unclosed\n");
    const error = loadError(path);
    expect(error.message).toContain(`${path} is not valid YAML`);
    expect(error.message).toMatch(/line \d+/);
  });

  it("reports a missing file as missing, not as YAML", () => {
    const error = loadError(join(dir, "nope.yaml"));
    expect(error.message).toMatch(/nope\.yaml: file not found/);
  });

  it("rejects a document without turns", () => {
    expect(loadError("description: nothing\n").message).toMatch(/turns: /);
  });
});

describe("parseScript", () => {
  it("validates an object literal and names the source in errors", () => {
    expect(parseScript({ turns: [{ text: "x" }] }).turns[0]!.text).toBe("x");
    expect(() => parseScript({ turns: [{ chunk_size: 0, text: "x" }] }, "my test")).toThrow(
      /my test is invalid:\n {2}turns\.0\.chunk_size/,
    );
  });
});
