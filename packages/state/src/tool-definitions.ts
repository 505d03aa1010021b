import { z } from "zod";
import { COMMAND_TOOL_DEFINITIONS } from "./tools/command.js";
import { DEFAULT_MAX_OUTPUT_LENGTH, DEFAULT_TOOL_TIMEOUT_MS, deepFreeze } from "./tools/definition-parts.js";
import { EDIT_FILE_DEFINITION, READ_FILE_DEFINITION, WRITE_FILE_DEFINITION } from "./tools/file-tools.js";
import { DESCRIBE_IMAGE_DEFINITION, READ_IMAGE_DEFINITION } from "./tools/images.js";
import { INPUT_SUBAGENT_DEFINITION, RUN_SUBAGENT_DEFINITION } from "./tools/subagent.js";

export { DEFAULT_MAX_OUTPUT_LENGTH, DEFAULT_TOOL_TIMEOUT_MS, deepFreeze };

/**
 * "The command/subagent tools … take a description argument … declared as a normal description
 * property in each entry's parameters"; `call_description: false` filters it out at assembly.
 */
export const CALL_DESCRIPTION_PROPERTY = "description";

/** Tool names as the provider APIs accept them (OpenAI and Anthropic: `^[a-zA-Z0-9_-]{1,64}$`). */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The JSON Schema of a tool's arguments. Only its outer shape is checked here (an object schema
 * whose `required` names declared properties); the schema itself is compiled by core (draft
 * 2020-12) when it assembles a session's toolset.
 */
export const ToolParametersSchema = z
  .looseObject({
    type: z.literal("object", { error: 'a tool\'s parameters must be an object schema: type: "object"' }),
    properties: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
    required: z.array(z.string()).optional(),
  })
  .superRefine((schema, ctx) => {
    const declared = new Set(Object.keys(schema.properties ?? {}));
    (schema.required ?? []).forEach((name, index) => {
      if (!declared.has(name)) {
        ctx.addIssue({
          code: "custom",
          path: ["required", index],
          message: `required names "${name}", which is not in properties`,
        });
      }
    });
  });

/** One entry of `tools.builtin` ("Each tool is described by one ToolDefinitionConfig"). */
export const ToolDefinitionConfigSchema = z.strictObject({
  name: z.string().regex(TOOL_NAME, "a tool name is 1-64 letters, digits, '_' or '-'"),
  description: z.string().min(1, "a tool needs a description for the model"),
  parameters: ToolParametersSchema,
  permission: z.enum(["r", "rw"]),
  forModel: z.enum(["vision", "text-only"]).optional(),
  timeoutMs: z.number().int().default(DEFAULT_TOOL_TIMEOUT_MS),
  maxOutputLength: z.number().int().default(DEFAULT_MAX_OUTPUT_LENGTH),
  call_description: z.boolean().optional(),
});

/** A tool definition after parsing: `timeoutMs` and `maxOutputLength` are always present. */
export type ToolDefinitionConfig = z.output<typeof ToolDefinitionConfigSchema>;
/** A tool definition as written in YAML (defaults may be omitted). */
export type ToolDefinitionConfigInput = z.input<typeof ToolDefinitionConfigSchema>;
export type ToolParameters = z.output<typeof ToolParametersSchema>;

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
