import { describe, expect, it } from "vitest";
import { createToolCallIdRegistry } from "../../src/models/tool-call-ids.js";

describe("tool call id registry", () => {
  it("keeps first ids, suffixes repeats and maps them back to the provider's id", () => {
    const ids = createToolCallIdRegistry();
    expect([ids.intern("a"), ids.intern("a"), ids.intern("b"), ids.intern("a")]).toEqual([
      "a",
      "a#2",
      "b",
      "a#3",
    ]);
    expect(ids.toWire("a#3")).toBe("a");
    expect(ids.toWire("b")).toBe("b");
  });

  it("generates distinct ids for calls the provider left unnamed", () => {
    const ids = createToolCallIdRegistry();
    const generated = [ids.intern(undefined), ids.intern(""), ids.intern(undefined)];
    expect(new Set(generated).size).toBe(3);
  });

  it("continues after a resume from the ids found in the context", () => {
    const ids = createToolCallIdRegistry();
    ids.remember("read");
    ids.remember("read#2");
    expect(ids.intern("read")).toBe("read#3");
    expect(ids.toWire("read#2")).toBe("read");
  });
});
