import { z } from "zod";

/** "timeoutMs: Per-call timeout (ms), default 120000; <=0 disables". */
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;
/** "head-kept truncation once output exceeds maxOutputLength (default 16000 characters)". */
export const DEFAULT_MAX_OUTPUT_LENGTH = 16_000;
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

type JsonSchema = Record<string, unknown>;

function objectSchema(properties: Record<string, JsonSchema>, required: string[]): ToolParameters {
  return { type: "object", properties, required, additionalProperties: false };
}

const callDescription: JsonSchema = {
  type: "string",
  description: "One sentence for the user on what this call does. Write it first.",
};
const imageSource: JsonSchema = {
  type: "string",
  description: "http(s) URL, or a file path (absolute or relative to the workspace).",
};

/**
 * The 9 built-in tools ("There are 9 built-in tools"). Names, permissions and timeouts are the
 * contract's table; argument names and defaults are the contract's argument blocks. Every byte of
 * these descriptions is sent with every request, so they say only what the model needs to act.
 */
export const DEFAULT_TOOL_DEFINITIONS: readonly ToolDefinitionConfig[] = deepFreeze([
  {
    name: "exec_command",
    description:
      "Run a shell command in the workspace via `bash -lc`; returns its output and exit code. If it is still running after yield_time_ms, it continues in the background and the call returns the output so far and a process_id: use input_command to poll it, write to its stdin or send Ctrl-C.",
    parameters: objectSchema(
      {
        description: callDescription,
        cmd: { type: "string" },
        workdir: {
          type: "string",
          description: "Working directory; default the workspace root. Relative paths resolve against it.",
        },
        yield_time_ms: {
          type: "integer",
          default: 60000,
          description: "How long to wait in the foreground before backgrounding (min 250).",
        },
      },
      ["description", "cmd"],
    ),
    permission: "rw",
    timeoutMs: 120_000,
    maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
  },
  {
    name: "input_command",
    description:
      "Drive a background command from exec_command: write to its stdin, send Ctrl-C, or poll. Returns the output since the last call, and the exit code once it has exited.",
    parameters: objectSchema(
      {
        description: callDescription,
        process_id: { type: "string", description: "The process_id returned by exec_command." },
        chars: {
          type: "string",
          description: 'Text for stdin ("\\n" submits a line); "\\u0003" alone sends Ctrl-C. Omit to poll.',
        },
        yield_time_ms: {
          type: "integer",
          description: "How long to wait for output; default 250 after a write, 5000 for a poll.",
        },
      },
      ["description", "process_id"],
    ),
    permission: "rw",
    timeoutMs: 130_000,
    maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
  },
  {
    name: "read_file",
    description:
      "Read a text file as numbered lines (cat -n). Page through long files with offset and limit. Binary files are refused.",
    parameters: objectSchema(
      {
        file_path: { type: "string" },
        offset: { type: "integer", minimum: 1, default: 1, description: "First line (1-based)." },
        limit: { type: "integer", minimum: 1, default: 2000, description: "Maximum lines." },
      },
      ["file_path"],
    ),
    permission: "r",
    timeoutMs: 30_000,
    maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
  },
  {
    name: "edit_file",
    description:
      "Replace exact text in an existing file: old_string (whitespace included) must occur exactly once, unless replace_all is true; new_string must differ. Returns a diff of the change.",
    parameters: objectSchema(
      {
        file_path: { type: "string" },
        old_string: { type: "string" },
        new_string: { type: "string" },
        replace_all: { type: "boolean", default: false, description: "Replace every occurrence." },
      },
      ["file_path", "old_string", "new_string"],
    ),
    permission: "rw",
    timeoutMs: 30_000,
    maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
  },
  {
    name: "write_file",
    description:
      "Create or overwrite a whole file, creating parent directories. For small changes to an existing file use edit_file.",
    parameters: objectSchema(
      {
        file_path: { type: "string" },
        content: { type: "string", description: "The complete new content." },
      },
      ["file_path", "content"],
    ),
    permission: "rw",
    timeoutMs: 30_000,
    maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
  },
  {
    name: "run_subagent",
    description:
      "Delegate a self-contained subtask to a child agent in the same workspace. The prompt must hold all the context it needs and say exactly what to return. If it is still running after yield_time_ms, the call returns a subagent_id for input_subagent. A subagent cannot start subagents.",
    parameters: objectSchema(
      {
        description: callDescription,
        prompt: { type: "string", description: "The complete subtask and the exact result expected." },
        agent_id: { type: "string", description: "The child's agent; default this agent." },
        model_id: {
          type: "string",
          description: "The child's model; requires provider. Omit both to use this session's model.",
        },
        provider: { type: "string", description: "The provider group of model_id." },
        yield_time_ms: {
          type: "integer",
          default: 300000,
          description: "How long to wait in the foreground before backgrounding.",
        },
      },
      ["description", "prompt"],
    ),
    permission: "rw",
    timeoutMs: 600_000,
    maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
  },
  {
    name: "input_subagent",
    description:
      "Poll a background subagent from run_subagent, or send it a follow-up prompt once it is idle. Returns its new output.",
    parameters: objectSchema(
      {
        description: callDescription,
        subagent_id: { type: "string", description: "The subagent_id returned by run_subagent." },
        prompt: {
          type: "string",
          description: "Follow-up task (only while the subagent is idle). Omit to poll.",
        },
        yield_time_ms: {
          type: "integer",
          description: "How long to wait; default 300000 with a prompt, 10000 for a poll.",
        },
      },
      ["description", "subagent_id"],
    ),
    permission: "rw",
    timeoutMs: 600_000,
    maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
  },
  {
    name: "read_image",
    description: "Load an image (png, jpeg, gif or webp, up to 5 MB) so that you can see it.",
    parameters: objectSchema({ source: imageSource }, ["source"]),
    permission: "r",
    forModel: "vision",
    timeoutMs: 60_000,
    maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
  },
  {
    name: "describe_image",
    description:
      "Have a vision model look at an image (png, jpeg, gif or webp, up to 5 MB) and answer your prompt about it in text.",
    parameters: objectSchema(
      {
        source: imageSource,
        prompt: {
          type: "string",
          description: "What to ask about the image; default a detailed description.",
        },
      },
      ["source"],
    ),
    permission: "r",
    forModel: "text-only",
    timeoutMs: 90_000,
    maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
  },
]);

/** Frozen all the way down, so no caller can change the defaults every other caller sees. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

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
