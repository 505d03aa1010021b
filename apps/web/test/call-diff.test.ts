import { describe, expect, it } from "vitest";
import { diffOfCall, diffOfOutput, diffOfPatch } from "../src/stream/call-diff.js";
import type { ToolCallView } from "../src/stream/timeline.js";

const EDIT_OUTPUT = [
  "Replaced 2 occurrences in src/a.ts",
  "--- src/a.ts",
  "+++ src/a.ts",
  "@@ -1,3 +1,3 @@",
  " const a = 1;",
  "-const b = 2;",
  "+const b = 3;",
  " const c = 4;",
  "\u2026and 1 more replacement",
].join("\n");

function call(fields: Partial<ToolCallView>): ToolCallView {
  return {
    toolCallId: "c1",
    name: "edit_file",
    arguments: "{}",
    streaming: false,
    outputStreaming: false,
    ...fields,
  } as ToolCallView;
}

describe("the diff of a file-editing call, from what the tool printed", () => {
  it("takes edit_file's unified diff after its headline, each line classified, the note kept apart", () => {
    const diff = diffOfOutput(EDIT_OUTPUT);
    expect(diff?.lines.map((line) => line.kind)).toEqual([
      "file",
      "file",
      "hunk",
      "context",
      "remove",
      "add",
      "context",
      "note",
    ]);
    expect(diff?.lines[4]?.text).toBe("-const b = 2;");
    expect(diff).toMatchObject({ added: 1, removed: 1 });
  });

  it("has no diff for a created file or an output without one", () => {
    expect(diffOfOutput("Created src/new.ts (12 bytes).")).toBeUndefined();
    expect(diffOfOutput("(change too large to show a diff: +900/\u2212800 lines)")).toBeUndefined();
    // A line of file content that looks like a header does not count without its +++ partner.
    expect(diffOfOutput("Overwrote x\n--- a heading in markdown\nmore")).toBeUndefined();
  });

  it("reads apply_patch's patch argument once the patch applied", () => {
    const patch =
      "*** Begin Patch\n*** Update File: a.ts\n@@ function f\n-  return 1;\n+  return 2;\n   }\n*** End Patch\n";
    const args = JSON.stringify({ description: "Fix f", patch });
    expect(diffOfPatch(patch)?.lines.map((line) => line.kind)).toEqual([
      "file",
      "file",
      "hunk",
      "remove",
      "add",
      "context",
      "file",
    ]);
    const done = diffOfCall(
      call({
        name: "apply_patch",
        arguments: args,
        output: "Applied the patch (1 file):\nM a.ts",
        stopReason: "completed",
      }),
    );
    expect(done).toMatchObject({ added: 1, removed: 1 });
    const failed = call({
      name: "apply_patch",
      arguments: args,
      output: "The patch failed: …",
      stopReason: "failed",
    });
    expect(diffOfCall(failed)).toBeUndefined();
  });

  it("shows nothing while the output streams, for a failed call, or for other tools", () => {
    expect(diffOfCall(call({ output: EDIT_OUTPUT, stopReason: "completed" }))).toMatchObject({ added: 1 });
    expect(diffOfCall(call({ output: EDIT_OUTPUT, outputStreaming: true }))).toBeUndefined();
    expect(diffOfCall(call({ output: EDIT_OUTPUT, stopReason: "aborted" }))).toBeUndefined();
    expect(diffOfCall(call({ name: "exec_command", output: EDIT_OUTPUT }))).toBeUndefined();
    expect(diffOfCall(call({}))).toBeUndefined();
  });
});
