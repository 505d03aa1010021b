import { describe, expect, it } from "vitest";
import { median } from "../src/measure.js";
import { renderTable } from "../src/table.js";

describe("renderTable", () => {
  it("aligns every column and marks a missed target NO", () => {
    const table = renderTable([
      {
        benchmark: "exec_overhead",
        metric: "exec_command / raw spawn",
        value: 1.654,
        unit: "ratio",
        target: "<= 1.3",
        ok: false,
      },
      { benchmark: "trace", metric: "append", value: 59_000, unit: "records/s" },
    ]);
    const lines = table.split("\n");
    expect(lines).toHaveLength(4);
    expect(new Set(lines.map((line) => line.length)).size).toBe(1);
    expect(lines[2]).toMatch(/\| 1\.65 +\| ratio +\| <= 1\.3 \| NO \|$/);
    expect(lines[3]).toMatch(/\| 59,000 +\| records\/s \| +\| +\|$/);
  });
});

describe("median", () => {
  it("is the middle sample, whatever order the samples came in", () => {
    expect(median([30, 10, 20])).toBe(20);
    expect(median([5, 1, 100, 2])).toBe(5);
  });

  it("refuses an empty list instead of returning NaN", () => {
    expect(() => median([])).toThrow(RangeError);
  });
});
