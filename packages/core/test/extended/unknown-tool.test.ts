import { EXTENDED_TOOL_NAMES } from "@penguin/state";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { extendedEnvironment, runCall, type TempDirs, workspace } from "./support.js";

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await workspace();
});
afterEach(async () => {
  await dirs.cleanup();
});

describe("an unknown tool", () => {
  it("is answered with the list of available tools, the extended ones included", async () => {
    const env = extendedEnvironment(dirs);
    const call = await runCall(env, "list_file", { path: "." });
    expect(call.complete.stop_reason).toBe("failed");
    expect(call.complete.output).toMatch(/^Unknown tool "list_file"\. Available tools: /);
    for (const tool of EXTENDED_TOOL_NAMES) expect(call.complete.output).toContain(tool);
  });
});
