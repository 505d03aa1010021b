import type { ToolSpec } from "@penguin/protocol";
import { McpToolBudgetSchema } from "@penguin/state/schemas";
import { describe, expect, it } from "vitest";
import { McpToolCatalog, oneLineDescription } from "../../src/mcp/catalog.js";
import { defersLoading, toolBudgetWarnings, toolListBytes } from "../../src/mcp/tool-budget.js";

const spec = (name: string, description = "d"): ToolSpec => ({
  name,
  description,
  parameters: { type: "object" },
  permission: "r",
});
const budget = (fields: Record<string, unknown> = {}) => McpToolBudgetSchema.parse(fields);

describe("the catalog of deferred MCP tools", () => {
  it("gives each tool the first non-empty line of its description, cut at 120 characters", () => {
    expect(oneLineDescription("\n\n  Finds   records.\nMore detail.")).toBe("Finds records.");
    expect(oneLineDescription("")).toBe("");
    expect(oneLineDescription(" \n\t\n")).toBe("");
    const long = oneLineDescription("a".repeat(300));
    expect(long).toHaveLength(120);
    expect(long.endsWith("…")).toBe(true);
  });

  it("offers only loaded tools of the catalog, keeps other tools, and reports unknown and repeated names", () => {
    const catalog = new McpToolCatalog(
      [
        { name: "mcp__a__x", description: "x" },
        { name: "mcp__a__y", description: "y" },
      ],
      ["mcp__a__y", "not_in_catalog"],
    );
    const all = [spec("read_file"), spec("mcp__a__x"), spec("mcp__a__y"), spec("load_mcp_tools")];
    expect(catalog.offered(all).map((t) => t.name)).toEqual(["read_file", "mcp__a__y", "load_mcp_tools"]);
    expect(catalog.load(["mcp__a__x", "mcp__a__x", "mcp__a__y", "read_file", ""])).toEqual({
      loaded: ["mcp__a__x"],
      already: ["mcp__a__y"],
      unknown: ["read_file", ""],
    });
    expect(catalog.offered(all)).toHaveLength(4);
    // The description is the same before and after loading: it is part of the prompt prefix.
    expect(catalog.description()).toContain("- mcp__a__x: x\n- mcp__a__y: y");
  });
});

describe("tools.mcpToolBudget", () => {
  it("defers past deferAboveTools with auto, always with always, never with never, and never without MCP tools", () => {
    expect(defersLoading(40, budget())).toBe(false);
    expect(defersLoading(41, budget())).toBe(true);
    expect(defersLoading(1, budget({ deferLoading: "always" }))).toBe(true);
    expect(defersLoading(0, budget({ deferLoading: "always" }))).toBe(false);
    expect(defersLoading(500, budget({ deferLoading: "never" }))).toBe(false);
    expect(defersLoading(1, budget({ deferAboveTools: 0 }))).toBe(true);
  });

  it("warns past the count and past the size, each once, and not at the limits", () => {
    const tools = Array.from({ length: 3 }, (_, i) => spec(`t${i}`));
    const bytes = toolListBytes(tools);
    expect(toolBudgetWarnings(tools, budget({ warnToolCount: 3, warnToolBytes: bytes }), false)).toEqual([]);
    const warnings = toolBudgetWarnings(tools, budget({ warnToolCount: 2, warnToolBytes: bytes - 1 }), true);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain(
      "the session offers 3 tools, more than tools.mcpToolBudget.warnToolCount (2)",
    );
    expect(warnings[1]).toContain(`the tool list is ${bytes} bytes`);
    // Already deferred: the advice is not to turn on what is on.
    expect(warnings[0]).not.toContain("deferLoading");
  });

  it("counts bytes as UTF-8, the way they go over the wire", () => {
    expect(toolListBytes([spec("t", "é")])).toBe(toolListBytes([spec("t", "e")]) + 1);
  });
});
