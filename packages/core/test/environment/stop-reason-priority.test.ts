import { partialToolCallOutput } from "@penguin/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stopReasonOf } from "../../src/environment/stop-reason.js";
import { makeEnvironment, runCall, type TempDirs, tempDirs, testTool } from "./support.js";

// The stop-reason priority (environment/stop-reason.ts): user interrupt > timeout > a throw >
// the tool's own report > completed.

describe("the stop-reason priority", () => {
  it("ranks interrupt over timeout over a throw over the tool's report", () => {
    const none = { interrupted: false, timedOut: false, threw: false };
    expect(
      stopReasonOf({ ...none, interrupted: true, timedOut: true, threw: true, reported: "failed" }),
    ).toBe("aborted");
    expect(stopReasonOf({ ...none, timedOut: true, threw: true, reported: "completed" })).toBe("timeout");
    expect(stopReasonOf({ ...none, threw: true, reported: "completed" })).toBe("failed");
    expect(stopReasonOf({ ...none, reported: "failed" })).toBe("failed");
    expect(stopReasonOf(none)).toBe("completed");
  });

  describe("through the Environment", () => {
    let dirs: TempDirs;
    beforeEach(async () => {
      dirs = await tempDirs();
    });
    afterEach(async () => {
      await dirs.cleanup();
    });

    it("a timeout outranks a throw and the tool's own report", async () => {
      const tool = testTool(
        async function* (_args, ctx) {
          yield partialToolCallOutput("delta", ctx.toolCallId, "working");
          await new Promise<void>((resolve) => ctx.signal?.addEventListener("abort", () => resolve()));
          throw new Error("stopped");
        },
        { timeoutMs: 20 },
      );
      const call = await runCall(makeEnvironment(dirs, [tool]), "test_tool");
      expect(call.complete.stop_reason).toBe("timeout");
    });

    it("a throw outranks the tool's own report, which counts when nothing outranks it", async () => {
      const thrower = testTool(async function* () {
        yield* [];
        throw new Error("broken");
      });
      expect((await runCall(makeEnvironment(dirs, [thrower]), "test_tool")).complete.stop_reason).toBe(
        "failed",
      );
      const reporter = testTool(async function* (_args, ctx) {
        yield partialToolCallOutput("delta", ctx.toolCallId, "x");
        return { stopReason: "failed" as const };
      });
      expect((await runCall(makeEnvironment(dirs, [reporter]), "test_tool")).complete.stop_reason).toBe(
        "failed",
      );
    });
  });
});
