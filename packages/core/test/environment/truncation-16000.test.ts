import { ToolDefinitionConfigSchema } from "@penguin/state/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_MAX_OUTPUT_LENGTH } from "../../src/environment/limits.js";
import { truncationMarker } from "../../src/environment/markers.js";
import { chunkTool, makeEnvironment, runCall, type TempDirs, tempDirs } from "./support.js";

// "head-kept truncation once output exceeds maxOutputLength (default 16000 characters)": a
// definition that names no maxOutputLength gets 16,000 (state's config default), and the
// Environment keeps exactly that many characters (environment/truncate.ts).

let dirs: TempDirs;
beforeAll(async () => {
  dirs = await tempDirs();
});
afterAll(async () => {
  await dirs.cleanup();
});

/** A test tool's definition as a user would write it: without maxOutputLength. */
function writtenWithoutCap() {
  return ToolDefinitionConfigSchema.parse({
    name: "test_tool",
    description: "A tool for tests.",
    parameters: { type: "object", properties: {} },
    permission: "r",
  });
}

describe("the 16,000-character truncation", () => {
  it("is the default of every definition", () => {
    expect(DEFAULT_MAX_OUTPUT_LENGTH).toBe(16_000);
    expect(writtenWithoutCap().maxOutputLength).toBe(16_000);
  });

  it("keeps 16,000 characters whole and cuts the 16,001st, with the marker", async () => {
    const { maxOutputLength } = writtenWithoutCap();
    const exact = makeEnvironment(dirs, [chunkTool(["a".repeat(16_000)], {}, { maxOutputLength })]);
    expect((await runCall(exact, "test_tool")).complete.output).toBe("a".repeat(16_000));

    const over = makeEnvironment(dirs, [
      chunkTool(["b".repeat(8_000), "b".repeat(8_001)], {}, { maxOutputLength }),
    ]);
    const call = await runCall(over, "test_tool");
    const [head, marker] = call.complete.output.split("\n");
    expect(head).toBe("b".repeat(16_000));
    expect(marker).toBe(truncationMarker(16_000));
    expect(marker).toBe("[output truncated: exceeded 16000 chars]");
  });
});
