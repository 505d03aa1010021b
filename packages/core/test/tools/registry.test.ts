import { DEFAULT_TOOL_DEFINITIONS, defaultToolDefinitions } from "@penguin/state";
import { describe, expect, it } from "vitest";
import type { BuiltinTool, ToolFactory } from "../../src/environment/types.js";
import { createBuiltinTools, selectToolsForModel } from "../../src/tools/registry.js";

describe("createBuiltinTools", () => {
  it("makes every default tool this package owns and reports the names it has no factory for", () => {
    const { tools, unknown } = createBuiltinTools(DEFAULT_TOOL_DEFINITIONS);
    expect(tools.map((t) => t.name)).toEqual([
      "exec_command",
      "input_command",
      "read_file",
      "edit_file",
      "write_file",
      "read_image",
      "describe_image",
    ]);
    expect(unknown).toEqual(["run_subagent", "input_subagent"]);
  });

  it("takes extra factories (the engine's subagent tools) and keeps definition order", () => {
    const made: string[] = [];
    const factory: ToolFactory = (definition) => {
      made.push(definition.name);
      return { name: definition.name, definition, execute: null as unknown as BuiltinTool["execute"] };
    };
    const { tools, unknown } = createBuiltinTools(DEFAULT_TOOL_DEFINITIONS, {
      run_subagent: factory,
      input_subagent: factory,
    });
    expect(unknown).toEqual([]);
    expect(tools.map((t) => t.name)).toEqual(DEFAULT_TOOL_DEFINITIONS.map((d) => d.name));
    expect(made).toEqual(["run_subagent", "input_subagent"]);
  });

  it("applies call_description: false at assembly, without touching the definition it was given", () => {
    const definitions = defaultToolDefinitions().filter((d) => d.name === "exec_command");
    definitions[0].call_description = false;
    const [tool] = createBuiltinTools(definitions).tools;
    expect(tool.definition.parameters.properties).not.toHaveProperty("description");
    expect(tool.definition.parameters.required).toEqual(["cmd"]);
    expect(definitions[0].parameters.properties).toHaveProperty("description");
  });

  it("does not treat inherited object keys as tool names", () => {
    const weird = { ...DEFAULT_TOOL_DEFINITIONS[2], name: "constructor" };
    expect(createBuiltinTools([weird]).unknown).toEqual(["constructor"]);
  });
});

describe("selectToolsForModel", () => {
  const names = (vision: boolean) => selectToolsForModel(DEFAULT_TOOL_DEFINITIONS, vision).map((d) => d.name);

  it("offers read_image to vision models and describe_image to text-only models, never both", () => {
    expect(names(true)).toContain("read_image");
    expect(names(true)).not.toContain("describe_image");
    expect(names(false)).toContain("describe_image");
    expect(names(false)).not.toContain("read_image");
    expect(names(true)).toHaveLength(DEFAULT_TOOL_DEFINITIONS.length - 1);
  });
});
