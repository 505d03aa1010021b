import { describe, expect, it } from "vitest";
import {
  clampYieldTime,
  DEFAULT_EXEC_YIELD_MS,
  DEFAULT_POLL_YIELD_MS,
  DEFAULT_WRITE_YIELD_MS,
  isUserInterrupt,
  MIN_EXEC_YIELD_MS,
} from "../../src/tools/command/index.js";

const exec = (requested: number | undefined, timeoutMs = 120_000) =>
  clampYieldTime({ requested, fallback: DEFAULT_EXEC_YIELD_MS, min: MIN_EXEC_YIELD_MS, timeoutMs });

describe("yield_time_ms clamps", () => {
  it("exec_command: default 60000, minimum 250, capped one second below the timeout", () => {
    expect(exec(undefined)).toBe(60_000);
    expect(exec(10)).toBe(250);
    expect(exec(-5)).toBe(250);
    expect(exec(1000.6)).toBe(1001);
    expect(exec(500_000)).toBe(119_000);
    expect(exec(undefined, 30_000)).toBe(29_000);
  });

  it("has no cap when the timeout is disabled (<= 0)", () => {
    expect(exec(500_000, 0)).toBe(500_000);
    expect(exec(500_000, -1)).toBe(500_000);
  });

  it("lets the minimum win when the timeout is shorter than minimum + margin", () => {
    expect(exec(60_000, 1000)).toBe(250);
  });

  it("input_command: 250 after a write, 5000 for a poll, no minimum", () => {
    expect(DEFAULT_WRITE_YIELD_MS).toBe(250);
    expect(DEFAULT_POLL_YIELD_MS).toBe(5000);
    expect(
      clampYieldTime({ requested: 0, fallback: DEFAULT_POLL_YIELD_MS, min: 0, timeoutMs: 130_000 }),
    ).toBe(0);
    expect(
      clampYieldTime({ requested: undefined, fallback: DEFAULT_POLL_YIELD_MS, min: 0, timeoutMs: 130_000 }),
    ).toBe(5000);
  });
});

describe("abort reasons", () => {
  const aborted = (reason?: unknown) => {
    const controller = new AbortController();
    controller.abort(reason);
    return controller.signal;
  };

  it("treats a timeout as a timeout, whichever way it is spelled", () => {
    expect(isUserInterrupt(aborted("timeout"))).toBe(false);
    expect(isUserInterrupt(aborted({ kind: "timeout" }))).toBe(false);
    expect(isUserInterrupt(aborted(new DOMException("late", "TimeoutError")))).toBe(false);
    expect(isUserInterrupt(aborted(new Error("timed out after 120000 ms")))).toBe(false);
  });

  it("treats everything else as the user's interrupt", () => {
    expect(isUserInterrupt(aborted("interrupt"))).toBe(true);
    expect(isUserInterrupt(aborted())).toBe(true);
    expect(isUserInterrupt(aborted(new Error("interrupted by user")))).toBe(true);
  });
});
