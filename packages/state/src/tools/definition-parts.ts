import { onFirstUse } from "@penguin/protocol";
import { z } from "zod";

// What every built-in tool definition is made of: the contract's defaults for a tool's timeout
// and output cap, and the schema pieces several tools share. Each tool's own definition is in its
// module next to this one; registry.ts lists them all.

/** "timeoutMs: Per-call timeout (ms), default 120000; <=0 disables". */
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;
/**
 * "head-kept truncation once output exceeds maxOutputLength (default 16000 characters)": the
 * default of every definition; core's Environment applies it (environment/truncate.ts).
 */
export const DEFAULT_MAX_OUTPUT_LENGTH = 16_000;

/**
 * "The command/subagent tools … take a description argument … declared as a normal description
 * property in each entry's parameters"; `call_description: false` filters it out at assembly.
 */
export const CALL_DESCRIPTION_PROPERTY = "description";

/** Tool names as the provider APIs accept them (OpenAI and Anthropic: `^[a-zA-Z0-9_-]{1,64}$`). */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** The schemas of a tool definition, built on the first call (configuration is checked only when read). */
export const toolDefinitionSchemas = onFirstUse(() => {
  /**
   * The JSON Schema of a tool's arguments. Only its outer shape is checked here (an object schema
   * whose `required` names declared properties); the schema itself is compiled by core (draft
   * 2020-12) when it assembles a session's toolset.
   */
  const ToolParametersSchema = z
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
  const ToolDefinitionConfigSchema = z.strictObject({
    name: z.string().regex(TOOL_NAME, "a tool name is 1-64 letters, digits, '_' or '-'"),
    description: z.string().min(1, "a tool needs a description for the model"),
    parameters: ToolParametersSchema,
    permission: z.enum(["r", "rw"]),
    forModel: z.enum(["vision", "text-only"]).optional(),
    timeoutMs: z.number().int().default(DEFAULT_TOOL_TIMEOUT_MS),
    maxOutputLength: z.number().int().default(DEFAULT_MAX_OUTPUT_LENGTH),
    call_description: z.boolean().optional(),
  });
  return { ToolParametersSchema, ToolDefinitionConfigSchema };
});
type Schemas = ReturnType<typeof toolDefinitionSchemas>;

/** A tool definition after parsing: `timeoutMs` and `maxOutputLength` are always present. */
export type ToolDefinitionConfig = z.output<Schemas["ToolDefinitionConfigSchema"]>;
/** A tool definition as written in YAML (defaults may be omitted). */
export type ToolDefinitionConfigInput = z.input<Schemas["ToolDefinitionConfigSchema"]>;
export type ToolParameters = z.output<Schemas["ToolParametersSchema"]>;

export type JsonSchema = Record<string, unknown>;

/** A tool's parameters: an object schema that takes no other properties. */
export function objectSchema(properties: Record<string, JsonSchema>, required: string[]): ToolParameters {
  return { type: "object", properties, required, additionalProperties: false };
}

/** The call description the command and subagent tools ask for first. */
export const callDescription: JsonSchema = {
  type: "string",
  description: "One sentence for the user on what this call does. Write it first.",
};

/** Frozen all the way down, so no caller can change the defaults every other caller sees. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
