import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import {
  adoptDefaultTools,
  applyCallDescription,
  DEFAULT_TOOL_DEFINITIONS,
  defaultToolDefinitions,
  missingDefaultTools,
  presetToolDefinitions,
  selectToolsForModel,
  type ToolDefinitionConfig,
  takesCallDescription,
  UPDATE_PLAN_DEFINITION,
} from "../src/index.js";
import { ToolDefinitionConfigSchema } from "../src/schemas.js";

const byName = (name: string): ToolDefinitionConfig => {
  const tool = DEFAULT_TOOL_DEFINITIONS.find((t) => t.name === name);
  if (!tool) throw new Error(`no default tool ${name}`);
  return tool;
};

describe("default tool definitions", () => {
  it("are exactly the contract's 9 tools with its permissions, timeouts and model classes", () => {
    const table = DEFAULT_TOOL_DEFINITIONS.map((t) => [
      t.name,
      t.permission,
      t.timeoutMs,
      t.forModel ?? null,
    ]);
    expect(table).toEqual([
      ["exec_command", "rw", 120000, null],
      ["input_command", "rw", 130000, null],
      ["read_file", "r", 30000, null],
      ["edit_file", "rw", 30000, null],
      ["write_file", "rw", 30000, null],
      ["run_subagent", "rw", 600000, null],
      ["input_subagent", "rw", 600000, null],
      ["read_image", "r", 60000, "vision"],
      ["describe_image", "r", 90000, "text-only"],
    ]);
    for (const tool of DEFAULT_TOOL_DEFINITIONS) expect(tool.maxOutputLength).toBe(16000);
  });

  it("take the contract's argument names, with the required ones required", () => {
    const args = (name: string) => {
      const { properties = {}, required = [] } = byName(name).parameters;
      return { all: Object.keys(properties).sort(), required: [...required].sort() };
    };
    expect(args("exec_command")).toEqual({
      all: ["cmd", "description", "workdir", "yield_time_ms"],
      required: ["cmd", "description"],
    });
    expect(args("input_command")).toEqual({
      all: ["chars", "description", "process_id", "yield_time_ms"],
      required: ["description", "process_id"],
    });
    expect(args("read_file")).toEqual({ all: ["file_path", "limit", "offset"], required: ["file_path"] });
    expect(args("edit_file")).toEqual({
      all: ["file_path", "new_string", "old_string", "replace_all"],
      required: ["file_path", "new_string", "old_string"],
    });
    expect(args("write_file")).toEqual({ all: ["content", "file_path"], required: ["content", "file_path"] });
    expect(args("run_subagent")).toEqual({
      all: ["agent_id", "description", "model_id", "prompt", "provider", "yield_time_ms"],
      required: ["description", "prompt"],
    });
    expect(args("input_subagent")).toEqual({
      all: ["description", "prompt", "subagent_id", "yield_time_ms"],
      required: ["description", "subagent_id"],
    });
    expect(args("read_image")).toEqual({ all: ["source"], required: ["source"] });
    expect(args("describe_image")).toEqual({ all: ["prompt", "source"], required: ["source"] });
  });

  it("state the contract's argument defaults", () => {
    const prop = (tool: string, name: string) =>
      byName(tool).parameters.properties?.[name] as Record<string, unknown>;
    expect(prop("exec_command", "yield_time_ms").default).toBe(60000);
    expect(prop("run_subagent", "yield_time_ms").default).toBe(300000);
    expect(prop("read_file", "offset").default).toBe(1);
    expect(prop("read_file", "limit").default).toBe(2000);
    expect(prop("edit_file", "replace_all").default).toBe(false);
  });

  it("put description first (and required) on command and subagent tools only", () => {
    const withDescription = DEFAULT_TOOL_DEFINITIONS.filter(takesCallDescription).map((t) => t.name);
    expect(withDescription).toEqual(["exec_command", "input_command", "run_subagent", "input_subagent"]);
    for (const name of withDescription) {
      const { properties = {}, required = [] } = byName(name).parameters;
      expect(Object.keys(properties)[0]).toBe("description");
      expect(required[0]).toBe("description");
    }
  });

  it("are valid config entries and compile as draft 2020-12 schemas that reject unknown arguments", () => {
    const ajv = new Ajv2020({ strict: true });
    for (const tool of DEFAULT_TOOL_DEFINITIONS) {
      expect(ToolDefinitionConfigSchema.parse(tool)).toEqual(tool);
      expect(tool.parameters.additionalProperties).toBe(false);
      expect(() => ajv.compile(tool.parameters)).not.toThrow();
    }
    const validateExec = ajv.compile(byName("exec_command").parameters);
    expect(validateExec({ description: "List files", cmd: "ls" })).toBe(true);
    expect(validateExec({ description: "List files", cmd: "ls", shell: "zsh" })).toBe(false);
    expect(validateExec({ cmd: "ls" })).toBe(false);
  });

  it("keep the schemas a default session sends with every request small", () => {
    // What a provider receives per tool: name, description and the parameters schema.
    for (const vision of [true, false]) {
      const sent = selectToolsForModel(DEFAULT_TOOL_DEFINITIONS, { vision }).map(
        ({ name, description, parameters }) => ({
          name,
          description,
          parameters,
        }),
      );
      expect(JSON.stringify(sent).length).toBeLessThan(5600);
    }
  });

  it("hand out copies, so editing one never changes the defaults", () => {
    const copy = defaultToolDefinitions();
    copy[0].description = "changed";
    delete copy[0].parameters.properties?.cmd;
    expect(DEFAULT_TOOL_DEFINITIONS[0].description).not.toBe("changed");
    expect(DEFAULT_TOOL_DEFINITIONS[0].parameters.properties?.cmd).toBeDefined();
    expect(() => {
      (DEFAULT_TOOL_DEFINITIONS[0].parameters.required as string[]).push("workdir");
    }).toThrow(TypeError);
  });
});

describe("applyCallDescription", () => {
  it("removes the description property and its required entry when call_description is false", () => {
    const exec = { ...defaultToolDefinitions()[0], call_description: false };
    const assembled = applyCallDescription(exec);
    expect(Object.keys(assembled.parameters.properties ?? {})).toEqual(["cmd", "workdir", "yield_time_ms"]);
    expect(assembled.parameters.required).toEqual(["cmd"]);
    expect(takesCallDescription(assembled)).toBe(false);
    // the input definition is untouched
    expect(exec.parameters.required).toEqual(["description", "cmd"]);
  });

  it("keeps the argument when call_description is missing or true", () => {
    for (const flag of [undefined, true]) {
      const assembled = applyCallDescription({ ...byName("input_command"), call_description: flag });
      expect(assembled.parameters.required).toContain("description");
      expect(takesCallDescription(assembled)).toBe(true);
    }
  });
});

describe("selectToolsForModel", () => {
  it("offers read_image to vision models and describe_image to text-only models, never both", () => {
    const vision = selectToolsForModel(DEFAULT_TOOL_DEFINITIONS, { vision: true }).map((t) => t.name);
    const text = selectToolsForModel(DEFAULT_TOOL_DEFINITIONS, { vision: false }).map((t) => t.name);
    expect(vision).toContain("read_image");
    expect(vision).not.toContain("describe_image");
    expect(text).toContain("describe_image");
    expect(text).not.toContain("read_image");
    expect(vision).toHaveLength(8);
    expect(text).toHaveLength(8);
  });
});

describe("adopting new default tools", () => {
  it("finds the default entries a frozen list lacks and appends them, keeping edited entries", () => {
    const frozen = defaultToolDefinitions().filter((t) => !["read_file", "describe_image"].includes(t.name));
    frozen[0] = { ...frozen[0], description: "my own wording" };
    expect(missingDefaultTools(frozen).map((t) => t.name)).toEqual([
      "read_file",
      "describe_image",
      "update_plan",
    ]);
    const adopted = adoptDefaultTools(frozen);
    expect(adopted.map((t) => t.name)).toEqual([
      ...frozen.map((t) => t.name),
      "read_file",
      "describe_image",
      "update_plan",
    ]);
    expect(adopted[0].description).toBe("my own wording");
    expect(missingDefaultTools(adopted)).toEqual([]);
  });
});

describe("update_plan", () => {
  it("is in every preset, reads only, and costs little on every request", () => {
    for (const preset of ["core", "extended"] as const) {
      expect(presetToolDefinitions(preset).map((t) => t.name)).toContain("update_plan");
    }
    expect(DEFAULT_TOOL_DEFINITIONS.map((t) => t.name)).not.toContain("update_plan");
    expect(UPDATE_PLAN_DEFINITION.permission).toBe("r");
    const { name, description, parameters } = UPDATE_PLAN_DEFINITION;
    expect(JSON.stringify({ name, description, parameters }).length).toBeLessThan(600);
  });
});
