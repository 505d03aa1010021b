import {
  applyCallDescription,
  selectToolsForModel as selectDefinitionsForModel,
  type ToolDefinitionConfig,
} from "@penguin/state";
import type { BuiltinTool, ToolFactory } from "../environment/types.js";
import { agentTreeToolFactories } from "./agents/index.js";
import { createExecCommandTool, createInputCommandTool } from "./command/index.js";
import { createDescribeImageTool } from "./describe-image/describe-image.js";
import { createEditFileTool } from "./edit-file/edit-file.js";
import { executionToolFactories } from "./executions/index.js";
import { extendedToolFactories } from "./extended/index.js";
import { journalToolFactories } from "./journal/index.js";
import { messagingToolFactories } from "./messaging/index.js";
import { metricsToolFactories } from "./metrics/index.js";
import { createUpdatePlanTool } from "./plan/index.js";
import { createReadFileTool } from "./read-file/read-file.js";
import { createReadImageTool } from "./read-image/read-image.js";
import { createWriteFileTool } from "./write-file/write-file.js";

// "There are 9 built-in tools (assembled via … registry.ts)": each name of a tool definition
// maps to the factory that makes it. run_subagent and input_subagent need the engine, so the
// engine passes their factories in as `extra`.

/**
 * The factories this package owns, by tool name: the core tools and the opt-in extended ones
 * (with the default `tools.limits`; a session passes its agent's limits in as `extra`).
 */
export const BUILTIN_TOOL_FACTORIES: Readonly<Record<string, ToolFactory>> = {
  ...extendedToolFactories(),
  // Without a mailbox they fail with a clear message; a session passes its agent's in as `extra`.
  ...messagingToolFactories(undefined),
  ...agentTreeToolFactories(undefined),
  // Without a session's trace it fails with a clear message; a session passes its source as `extra`.
  ...metricsToolFactories(undefined),
  // Without a session's traces they fail with a clear message; a session passes its source in.
  ...executionToolFactories(undefined),
  // Without a session's journal it fails with a clear message; a session passes its own as `extra`.
  ...journalToolFactories(undefined),
  exec_command: createExecCommandTool,
  input_command: createInputCommandTool,
  read_file: createReadFileTool,
  edit_file: createEditFileTool,
  write_file: createWriteFileTool,
  read_image: createReadImageTool,
  describe_image: createDescribeImageTool,
  update_plan: createUpdatePlanTool,
};

export interface BuiltinToolset {
  tools: BuiltinTool[];
  /** Definition names with no factory (reported to the user; the rest of the toolset still works). */
  unknown: string[];
}

/**
 * Makes the tools of a session from its definitions, in definition order. Each definition is
 * assembled first: "call_description: false filters the property (and its required entry) out of
 * the schema at assembly time (in-memory only, the YAML is never rewritten)".
 */
export function createBuiltinTools(
  definitions: readonly ToolDefinitionConfig[],
  extra: Readonly<Record<string, ToolFactory>> = {},
): BuiltinToolset {
  const factories: Record<string, ToolFactory> = { ...BUILTIN_TOOL_FACTORIES, ...extra };
  const tools: BuiltinTool[] = [];
  const unknown: string[] = [];
  for (const definition of definitions) {
    const factory = Object.hasOwn(factories, definition.name) ? factories[definition.name] : undefined;
    if (!factory) {
      unknown.push(definition.name);
      continue;
    }
    tools.push(factory(applyCallDescription(definition)));
  }
  return { tools, unknown };
}

/**
 * "read_image and describe_image are mutually exclusive, selected by the Session model's vision
 * flag": vision models get the `forModel: vision` tools, text-only models the `text-only` ones,
 * and every model the tools without `forModel`.
 */
export function selectToolsForModel(
  definitions: readonly ToolDefinitionConfig[],
  modelHasVision: boolean,
): ToolDefinitionConfig[] {
  return selectDefinitionsForModel(definitions, { vision: modelHasVision });
}
