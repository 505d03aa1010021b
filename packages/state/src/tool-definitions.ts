import { COMMAND_TOOL_DEFINITIONS } from "./tools/command.js";
import {
  CALL_DESCRIPTION_PROPERTY,
  deepFreeze,
  type ToolDefinitionConfig,
} from "./tools/definition-parts.js";
import { EDIT_FILE_DEFINITION, READ_FILE_DEFINITION, WRITE_FILE_DEFINITION } from "./tools/file-tools.js";
import { DESCRIBE_IMAGE_DEFINITION, READ_IMAGE_DEFINITION } from "./tools/images.js";
import { INPUT_SUBAGENT_DEFINITION, RUN_SUBAGENT_DEFINITION } from "./tools/subagent.js";

export {
  CALL_DESCRIPTION_PROPERTY,
  DEFAULT_MAX_OUTPUT_LENGTH,
  DEFAULT_TOOL_TIMEOUT_MS,
  deepFreeze,
  type ToolDefinitionConfig,
  type ToolDefinitionConfigInput,
  type ToolParameters,
  toolDefinitionSchemas,
} from "./tools/definition-parts.js";

/**
 * The 9 built-in tools ("There are 9 built-in tools"). Names, permissions and timeouts are the
 * contract's table; argument names and defaults are the contract's argument blocks. Every byte of
 * these descriptions is sent with every request, so they say only what the model needs to act.
 * Each definition lives in its tool's module under tools/.
 */
export const DEFAULT_TOOL_DEFINITIONS: readonly ToolDefinitionConfig[] = deepFreeze([
  ...COMMAND_TOOL_DEFINITIONS,
  READ_FILE_DEFINITION,
  EDIT_FILE_DEFINITION,
  WRITE_FILE_DEFINITION,
  RUN_SUBAGENT_DEFINITION,
  INPUT_SUBAGENT_DEFINITION,
  READ_IMAGE_DEFINITION,
  DESCRIBE_IMAGE_DEFINITION,
]);

export const BUILTIN_TOOL_NAMES: readonly string[] = DEFAULT_TOOL_DEFINITIONS.map((tool) => tool.name);

/** A deep copy of the default definitions, safe to modify and to write into an agent's file. */
export function defaultToolDefinitions(): ToolDefinitionConfig[] {
  return structuredClone(DEFAULT_TOOL_DEFINITIONS) as ToolDefinitionConfig[];
}

/**
 * The definition the model sees. With `call_description: false` the `description` property and
 * its `required` entry are removed; the result is a copy, so the config (and its YAML file) is
 * never changed ("in-memory only, the YAML is never rewritten").
 */
export function applyCallDescription(definition: ToolDefinitionConfig): ToolDefinitionConfig {
  const copy = structuredClone(definition);
  if (definition.call_description !== false) return copy;
  const { properties, required } = copy.parameters;
  if (properties) delete properties[CALL_DESCRIPTION_PROPERTY];
  if (required) copy.parameters.required = required.filter((name) => name !== CALL_DESCRIPTION_PROPERTY);
  return copy;
}

/** Whether a tool (as assembled) asks the model for a call description. */
export function takesCallDescription(definition: ToolDefinitionConfig): boolean {
  return definition.parameters.properties?.[CALL_DESCRIPTION_PROPERTY] !== undefined;
}

/**
 * "read_image and describe_image are mutually exclusive, selected by the Session model's vision
 * flag": keeps tools without `forModel` and those that match the model's class.
 */
export function selectToolsForModel(
  definitions: readonly ToolDefinitionConfig[],
  model: { vision: boolean },
): ToolDefinitionConfig[] {
  const modelClass = model.vision ? "vision" : "text-only";
  return definitions.filter((tool) => tool.forModel === undefined || tool.forModel === modelClass);
}
