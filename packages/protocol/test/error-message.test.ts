import { describe, expect, test } from "vitest";
import { errorMessage, errorStack } from "../src/index.js";

describe("errorMessage", () => {
  test("an Error gives its message", () => {
    expect(errorMessage(new TypeError("bad input"))).toBe("bad input");
  });

  test("anything else thrown gives its string form", () => {
    expect(errorMessage("plain text")).toBe("plain text");
    expect(errorMessage(42)).toBe("42");
    expect(errorMessage(undefined)).toBe("undefined");
    expect(errorMessage({ toString: () => "custom" })).toBe("custom");
  });
});

describe("errorStack", () => {
  test("an Error gives its stack", () => {
    const error = new Error("crash");
    expect(errorStack(error)).toBe(error.stack);
  });

  test("an Error without a stack gives its message", () => {
    const error = new Error("no stack");
    error.stack = undefined;
    expect(errorStack(error)).toBe("no stack");
  });

  test("anything else thrown gives its string form", () => {
    expect(errorStack("plain text")).toBe("plain text");
  });
});
