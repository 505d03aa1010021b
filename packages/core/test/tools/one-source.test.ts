import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import {
  BUILTIN_TOOL_REGISTRY,
  DEFAULT_ASK_TIMEOUT_MS,
  DEFAULT_JOBS_BUFFER_CHARS,
  DEFAULT_JOBS_MAX_JOBS,
  DEFAULT_WAIT_MESSAGES_TIMEOUT_MS,
  defaultSystemConfig,
  defaultToolLimits,
  MAX_ASK_TIMEOUT_MS,
  MAX_WAIT_MESSAGES_TIMEOUT_MS,
  resolveToolset,
  type ToolDefinitionConfig,
} from "@penguin/state";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_MAX_OUTPUT_LENGTH,
  IMAGE_MAX_BYTES,
  READ_FILE_DEFAULT_LIMIT,
  READ_FILE_DEFAULT_OFFSET,
} from "../../src/environment/limits.js";
import { MAX_COMMAND_SESSIONS } from "../../src/processes/process-manager.js";
import { DEFAULT_UNREAD_BUFFER_CHARS } from "../../src/processes/unread-buffer.js";
import {
  DEFAULT_EXEC_YIELD_MS,
  DEFAULT_POLL_YIELD_MS,
  DEFAULT_WRITE_YIELD_MS,
  MIN_EXEC_YIELD_MS,
} from "../../src/tools/command/call-arguments.js";
import { BUILTIN_TOOL_FACTORIES } from "../../src/tools/registry.js";
import { SUBAGENT_TOOL_NAMES } from "../../src/tools/subagent/index.js";
import {
  DEFAULT_FOLLOW_UP_YIELD_MS,
  DEFAULT_RUN_YIELD_MS,
  DEFAULT_POLL_YIELD_MS as DEFAULT_SUBAGENT_POLL_YIELD_MS,
} from "../../src/tools/subagent/limits.js";

// "No constant or enum defined twice (a test … guards the tool definitions: one source)": every
// built-in tool has one definition (state's registry) and one implementation (core's factories),
// the defaults written into a new config are the constants the implementations run with, and
// the numbers a description states are those constants.

const registry = BUILTIN_TOOL_REGISTRY.map((entry) => entry.definition);
const byName = new Map(registry.map((definition) => [definition.name, definition]));

function definition(name: string): ToolDefinitionConfig {
  const found = byName.get(name);
  if (!found) throw new Error(`no registry entry for ${name}`);
  return found;
}

function propertyOf(name: string, property: string): Record<string, unknown> {
  const schema = definition(name).parameters.properties?.[property];
  if (!schema) throw new Error(`${name} has no property ${property}`);
  return schema;
}

/** Every description the model reads of a tool: its own and its properties'. */
function descriptionsOf(tool: ToolDefinitionConfig): string[] {
  const texts = [tool.description];
  for (const schema of Object.values(tool.parameters.properties ?? {})) {
    if (typeof schema.description === "string") texts.push(schema.description);
  }
  return texts;
}

describe("one source for each built-in tool", () => {
  it("has exactly one registry entry per tool name", () => {
    const names = registry.map((tool) => tool.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it("has exactly one implementation per registry entry, and none without an entry", () => {
    const implemented = [...Object.keys(BUILTIN_TOOL_FACTORIES), ...SUBAGENT_TOOL_NAMES];
    expect(new Set(implemented).size).toBe(implemented.length);
    expect([...implemented].sort()).toEqual(registry.map((tool) => tool.name).sort());
  });

  it("makes a config's default toolsets from the registry", () => {
    const config = defaultSystemConfig();
    const inPreset = (preset: "core" | "extended") =>
      BUILTIN_TOOL_REGISTRY.filter((entry) => preset === "extended" || entry.preset === "core").map(
        (entry) => entry.definition.name,
      );
    expect(resolveToolset(config).map((tool) => tool.name)).toEqual(inPreset("core"));
    const extended = { tools: { ...config.tools, preset: "extended" as const } };
    expect(resolveToolset(extended).map((tool) => tool.name)).toEqual(inPreset("extended"));
  });

  it("gives the implementations' constants as the defaults of the definitions", () => {
    for (const tool of registry) expect(tool.maxOutputLength, tool.name).toBeGreaterThan(0);
    for (const name of ["exec_command", "input_command", "read_file", "run_subagent", "read_image"]) {
      expect(definition(name).maxOutputLength, name).toBe(DEFAULT_MAX_OUTPUT_LENGTH);
    }
    expect(propertyOf("exec_command", "yield_time_ms").default).toBe(DEFAULT_EXEC_YIELD_MS);
    expect(propertyOf("run_subagent", "yield_time_ms").default).toBe(DEFAULT_RUN_YIELD_MS);
    expect(propertyOf("wait_messages", "timeout_ms").default).toBe(DEFAULT_WAIT_MESSAGES_TIMEOUT_MS);
    expect(propertyOf("ask", "timeout_ms").default).toBe(DEFAULT_ASK_TIMEOUT_MS);
    expect(propertyOf("read_file", "offset").default).toBe(READ_FILE_DEFAULT_OFFSET);
    expect(propertyOf("read_file", "limit").default).toBe(READ_FILE_DEFAULT_LIMIT);
    expect(DEFAULT_JOBS_MAX_JOBS).toBe(MAX_COMMAND_SESSIONS);
    expect(DEFAULT_JOBS_BUFFER_CHARS).toBe(DEFAULT_UNREAD_BUFFER_CHARS);
  });

  it("states in a description only numbers that are the implementation's constants", () => {
    const MiB = 1024 * 1024;
    const limits = defaultToolLimits();
    // Each number a description states, and the constant it must be.
    const stated: Record<string, number[]> = {
      run_command: [limits.run_command.defaultTimeoutMs],
      wait_job: [limits.wait_job.defaultTimeoutMs],
      read_job_output: [limits.read_job_output.defaultLines],
      // Prose, not limits: "1 = only the directory's own entries", "about 3 lines of context".
      list_files: [1],
      apply_patch: [3],
      exec_command: [MIN_EXEC_YIELD_MS],
      input_command: [DEFAULT_WRITE_YIELD_MS, DEFAULT_POLL_YIELD_MS],
      input_subagent: [DEFAULT_FOLLOW_UP_YIELD_MS, DEFAULT_SUBAGENT_POLL_YIELD_MS],
      read_image: [IMAGE_MAX_BYTES / MiB],
      describe_image: [IMAGE_MAX_BYTES / MiB],
      // Prose: "0 returns at once".
      wait_messages: [0, MAX_WAIT_MESSAGES_TIMEOUT_MS],
      ask: [MAX_ASK_TIMEOUT_MS],
    };
    for (const tool of registry) {
      const numbers = descriptionsOf(tool).flatMap((text) =>
        // Numbers only: not the 1 of "1-based", nor digits inside a name such as cmd_N or sha256.
        [...text.matchAll(/(?<![\w-])\d[\d,]*(?![\w-])/g)].map((m) => Number(m[0].replaceAll(",", ""))),
      );
      expect(numbers.sort(), tool.name).toEqual([...(stated[tool.name] ?? [])].sort());
    }
  });

  it("defines each exported constant of the tools once across state and core", () => {
    const root = join(import.meta.dirname, "../../..");
    const definitions = new Map<string, string[]>();
    for (const dir of ["core/src", "state/src"]) {
      for (const file of sourceFiles(join(root, dir))) {
        const text = readFileSync(file, "utf8");
        for (const match of text.matchAll(/^export const ([A-Z][A-Z0-9_]+)\s*[:=]/gm)) {
          const where = definitions.get(match[1]) ?? [];
          where.push(relative(root, file));
          definitions.set(match[1], where);
        }
      }
    }
    const twice = [...definitions].filter(([, where]) => where.length > 1);
    expect(twice).toEqual([]);
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => join(entry.parentPath, entry.name));
}
