import {
  DEFAULT_TOOL_PRESET,
  EXTENDED_TOOL_DEFINITIONS,
  type ToolPreset,
} from "./extended-tool-definitions.js";
import { DEFAULT_TOOL_DEFINITIONS, type ToolDefinitionConfig } from "./tool-definitions.js";
import { PLAN_TOOL_DEFINITIONS } from "./tools/plan.js";

// The one registry of Penguin's built-in tools: every definition (name, JSON schema, description,
// permission, defaults), default and extended, in the order a preset lists them. The config
// defaults (`tools.builtin` of a new system_config.yaml, the entries `tools sync` adopts) are
// made from it, and core checks that it has one implementation for each entry.
//
// Why the definitions live here, in @penguin/state, and not in core next to each tool's code:
// a definition is pure data (no Node API), state must write it into a user's config without
// loading core (the CLI's `config` and `tools sync` commands, the server's agent setup), and
// the layering is one-way (protocol <- state <- core). So each tool's definition and every
// number its description states are one module under state/src/tools/, and core's tool folder
// imports those constants for its implementation: nothing is defined twice, and no caller of
// state's exports had to change.

/** A built-in tool and the smallest preset that offers it. */
export interface RegisteredTool {
  definition: ToolDefinitionConfig;
  preset: ToolPreset;
}

export const BUILTIN_TOOL_REGISTRY: readonly RegisteredTool[] = [
  ...DEFAULT_TOOL_DEFINITIONS.map((definition) => ({ definition, preset: "core" as const })),
  // Not one of the contract's nine, but offered in every preset: the model's checklist.
  ...PLAN_TOOL_DEFINITIONS.map((definition) => ({ definition, preset: "core" as const })),
  ...EXTENDED_TOOL_DEFINITIONS.map((definition) => ({ definition, preset: "extended" as const })),
];

/** A deep copy of a preset's definitions: the nine core tools and update_plan, plus the extended ones for `extended`. */
export function presetToolDefinitions(preset: ToolPreset = DEFAULT_TOOL_PRESET): ToolDefinitionConfig[] {
  const entries = BUILTIN_TOOL_REGISTRY.filter((entry) => preset === "extended" || entry.preset === "core");
  return structuredClone(entries.map((entry) => entry.definition));
}

/**
 * The entries of the agent's preset that a persisted `tools.builtin` list lacks, by name. An
 * agent's list is frozen as written, so tools added to Penguin (or to its preset) after the
 * agent was created show up here.
 */
export function missingDefaultTools(
  list: readonly Pick<ToolDefinitionConfig, "name">[],
  preset: ToolPreset = DEFAULT_TOOL_PRESET,
): ToolDefinitionConfig[] {
  const present = new Set(list.map((tool) => tool.name));
  return presetToolDefinitions(preset).filter((tool) => !present.has(tool.name));
}

/** `list` with the preset's missing entries appended (in preset order); existing entries are kept as written. */
export function adoptDefaultTools<T extends Pick<ToolDefinitionConfig, "name">>(
  list: readonly T[],
  preset: ToolPreset = DEFAULT_TOOL_PRESET,
): (T | ToolDefinitionConfig)[] {
  return [...list, ...missingDefaultTools(list, preset)];
}
