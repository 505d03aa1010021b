import { describe, expect, it } from "vitest";
import { SubagentManager } from "../../src/tools/subagent/manager.js";
import type { SubagentLauncher } from "../../src/tools/subagent/types.js";

// The message of a refused spawn names what holds every place, including spawns of the same
// round whose child session is still starting.

/** A launcher whose child sessions never finish starting until `fail()` (then they cannot start). */
function stalledLauncher() {
  const waiting: ((error: Error) => void)[] = [];
  const launcher: SubagentLauncher = {
    create: () => new Promise((_, reject) => waiting.push(reject)),
    resume: () => Promise.reject(new Error("not used")),
    readTrace: () => [],
  };
  const fail = () => {
    for (const reject of waiting.splice(0)) reject(new Error("stopped"));
  };
  return { launcher, fail };
}

describe("the subagent cap", () => {
  it("names the spawns still starting when they hold every place, never `in use ()`", async () => {
    const { launcher, fail } = stalledLauncher();
    const manager = new SubagentManager({ launcher, maxSessions: 2 });
    const first = manager.spawn({});
    const second = manager.spawn({});
    const refused = await manager.spawn({});
    expect(refused).toMatchObject({ ok: false });
    const error = (refused as { error: string }).error;
    expect(error).not.toContain("()");
    expect(error).toContain(
      "all 2 subagent sessions are running or in use (sub_1 (starting), sub_2 (starting))",
    );
    fail();
    expect(await first).toMatchObject({ ok: false, error: "the subagent could not be started: stopped" });
    expect(await second).toMatchObject({ ok: false });
  });
});
