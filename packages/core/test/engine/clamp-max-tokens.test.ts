import { describe, expect, it } from "vitest";
import { clampMaxTokens, MIN_REPLY_TOKENS } from "../../src/engine/limits.js";

// The one rule for a request's max_tokens (docs/models.md, "Context window and output cap"): the
// configured cap, clamped to what the window leaves after the estimated input, never below the
// least reply (or the configured cap, if that is smaller).

describe("clampMaxTokens", () => {
  it("keeps a cap that fits", () => {
    expect(clampMaxTokens(32_000, 200_000, 10_000)).toBe(32_000);
  });

  it("shrinks the cap to exactly what the window leaves after the estimated input", () => {
    expect(clampMaxTokens(32_000, 128_000, 100_000)).toBe(28_000);
  });

  it("never goes below the least reply when the input seems to fill the window", () => {
    expect(clampMaxTokens(32_000, 8_000, 9_000)).toBe(MIN_REPLY_TOKENS);
    expect(clampMaxTokens(32_000, 8_000, 7_500)).toBe(MIN_REPLY_TOKENS);
  });

  it("a configured cap below the least reply is the floor", () => {
    expect(clampMaxTokens(500, 8_000, 9_000)).toBe(500);
  });

  it("sends no cap for -1, 0 or nothing configured (the provider's default)", () => {
    expect(clampMaxTokens(-1, 8_000, 10)).toBeUndefined();
    expect(clampMaxTokens(0, 8_000, 10)).toBeUndefined();
    expect(clampMaxTokens(undefined, 8_000, 10)).toBeUndefined();
  });

  it("leaves the cap as configured when the window is unknown", () => {
    expect(clampMaxTokens(4_000, undefined, 1_000_000)).toBe(4_000);
  });
});
