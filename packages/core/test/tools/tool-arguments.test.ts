import { DEFAULT_TOOL_DEFINITIONS } from "@penguin/state";
import { describe, expect, expectTypeOf, it } from "vitest";
import { ProcessManager } from "../../src/processes/process-manager.js";
import { answer } from "../../src/tools/call-text.js";
import {
  booleanArg,
  executeWithArguments,
  optionalStringArg,
  pathArg,
  pathLockKeys,
  positiveIntegerArg,
  readArguments,
  stringArg,
} from "../../src/tools/files/file-tool-support.js";
import { context, runCall } from "../command/helpers.js";

// The file tools read all their arguments from one spec (readArguments). The schema checks come
// first, but the schema is user-editable config, so the tools still say what is wrong, in the
// order the spec lists the arguments.

const workspace = "/ws";
const spec = {
  path: pathArg("file_path"),
  content: stringArg("content"),
  expected: optionalStringArg("expected_sha256"),
  offset: positiveIntegerArg("offset", 1),
  force: booleanArg("force", false),
};

describe("readArguments", () => {
  it("reads every argument under the spec's names, with fallbacks for those not given", () => {
    const read = readArguments({ file_path: "a/b.txt", content: "x" }, workspace, spec);
    expect(read).toEqual({
      ok: true,
      value: { path: "/ws/a/b.txt", content: "x", expected: undefined, offset: 1, force: false },
    });
    if (read.ok) {
      expectTypeOf(read.value).toEqualTypeOf<{
        path: string;
        content: string;
        expected: string | undefined;
        offset: number;
        force: boolean;
      }>();
    }
  });

  it("reports the first wrong argument in the spec's order, in the tools' own words", () => {
    const bothWrong = { file_path: "", content: 3 };
    expect(readArguments(bothWrong, workspace, spec)).toEqual({
      ok: false,
      error: 'argument "file_path" is empty: give a file path',
    });
    const cases: [Record<string, unknown>, string][] = [
      [{ file_path: "a\0b" }, 'argument "file_path" contains a NUL character'],
      [{ file_path: 7 }, 'argument "file_path" must be a string'],
      [{ file_path: "a", content: 3 }, 'argument "content" must be a string'],
      [{ file_path: "a", content: "", expected_sha256: 1 }, 'argument "expected_sha256" must be a string'],
      [{ file_path: "a", content: "", offset: 0 }, 'argument "offset" must be an integer >= 1, got 0'],
      [{ file_path: "a", content: "", force: "yes" }, 'argument "force" must be true or false'],
    ];
    for (const [given, error] of cases) {
      expect(readArguments(given, workspace, spec)).toEqual({ ok: false, error });
    }
  });
});

describe("executeWithArguments", () => {
  const definition = DEFAULT_TOOL_DEFINITIONS.find((d) => d.name === "read_file")!;
  const tool = {
    name: "read_file",
    definition,
    execute: executeWithArguments(spec, async function* ({ path, offset }, ctx) {
      return yield* answer(ctx, `${path} from line ${offset}`);
    }),
  };

  it("runs the tool with the values it read", async () => {
    const run = await runCall(
      tool,
      { file_path: "a", content: "", offset: 3 },
      context(new ProcessManager(), workspace),
    );
    expect(run.output).toBe("/ws/a from line 3");
    expect(run.result).toEqual({});
  });

  it("fails the call with the first wrong argument, and never runs the tool", async () => {
    const run = await runCall(tool, { file_path: "a" }, context(new ProcessManager(), workspace));
    expect(run.output).toBe('argument "content" must be a string');
    expect(run.result).toEqual({ stopReason: "failed" });
  });
});

describe("pathLockKeys", () => {
  it("locks the resolved paths of the named arguments that are strings", () => {
    const lockKeys = pathLockKeys("source", "destination");
    expect(lockKeys({ source: "a", destination: "/b" }, workspace)).toEqual(["/ws/a", "/b"]);
    expect(lockKeys({ source: 1, destination: "b" }, workspace)).toEqual(["/ws/b"]);
    expect(pathLockKeys("path")({}, workspace)).toEqual([]);
  });
});
