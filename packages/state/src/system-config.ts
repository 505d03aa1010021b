import { APPROVAL_MODES, onFirstUse } from "@penguin/protocol";
import { z } from "zod";
import { compactionSchemas, DEFAULT_COMPACTION_PROMPT } from "./compaction-config.js";
import { configDefault } from "./config-defaults.js";
import { type ConfigResult, loadYamlConfig, parseYamlConfig } from "./config-errors.js";
import { execSettingsSchemas } from "./exec-config.js";
import {
  applyRichRead,
  applyWriteGuard,
  defaultToolLimits,
  readFileRichEnabled,
  TOOL_PRESETS,
  type ToolLimits,
  toolLimitsSchemas,
  writeGuardEnabled,
} from "./extended-tool-definitions.js";
import { hookSchemas } from "./hooks-config.js";
import { DEFAULT_SYSTEM_PROMPT } from "./system-prompt.js";
import { teamSchemas } from "./team-config.js";
import {
  applyCallDescription,
  type ToolDefinitionConfig,
  toolDefinitionSchemas,
} from "./tool-definitions.js";
import { presetToolDefinitions } from "./tool-registry.js";
import { yamlFileText } from "./yaml-file-text.js";

/** "max_turns per Task (default -1 = unlimited)". */
export const DEFAULT_MAX_TURNS = -1;
/** model.max_tokens default; -1 leaves the choice to the provider. */
export const DEFAULT_MODEL_MAX_TOKENS = 32_000;
/** model.timeoutMs: how long one model request may take. */
export const DEFAULT_MODEL_TIMEOUT_MS = 120_000;
/** How hard the model thinks, defined here once for every package (config, SDK, CLI, adapters). */
export const THINKING_LEVELS = ["none", "low", "medium", "high", "max"] as const;
export const DEFAULT_THINKING_LEVEL = "medium";
/** MCP servers: how long connecting may take before the server is skipped. */
export const DEFAULT_MCP_CONNECT_TIMEOUT_MS = 10_000;
/**
 * "Warn past a configurable count": OpenAI documents 128 functions as the most one request may
 * carry, so a session that offers more is warned before a provider refuses it.
 */
export const DEFAULT_MCP_WARN_TOOL_COUNT = 128;
/**
 * "Warn past a configurable … size": the tool list's JSON, in bytes. 32 KiB (about 8,000 tokens,
 * twice the extended built-in toolset) is sent again with every request of the session.
 */
export const DEFAULT_MCP_WARN_TOOL_BYTES = 32 * 1024;
/**
 * "past a threshold, MCP tools are listed by name and one-line description in a compact catalog":
 * with `deferLoading: auto`, deferred once the MCP servers together offer more tools than this
 * (two ordinary servers, about 30 tools, stay loaded; three or more usually do not).
 */
export const DEFAULT_MCP_DEFER_ABOVE_TOOLS = 40;
/** `tools.mcpToolBudget.deferLoading`: when MCP tools' schemas wait for `load_mcp_tools`. */
export const MCP_DEFER_LOADING_MODES = ["auto", "always", "never"] as const;

/** The schemas of system_config.yaml, built on the first call (configuration is checked only when read). */
export const systemConfigSchemas = onFirstUse(() => {
  const { CompactionSettingsSchema } = compactionSchemas();
  const { ExecSettingsSchema } = execSettingsSchemas();
  const { ToolLimitsSchema } = toolLimitsSchemas();
  const { HooksSectionSchema } = hookSchemas();
  const { ChildAgentsSettingsSchema, NoticesSettingsSchema } = teamSchemas();
  const { ToolDefinitionConfigSchema } = toolDefinitionSchemas();
  const ThinkingLevelSchema = z.enum(THINKING_LEVELS);
  const positiveInt = z.number().int().positive();
  const positiveNumber = z.number().positive();
  const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

  const ModelSettingsSchema = z.strictObject({
    provider: z.string().min(1).optional(),
    model_id: z.string().min(1).optional(),
    max_tokens: z
      .number()
      .int()
      .refine((n) => n === -1 || n > 0, "use a positive number of tokens, or -1 for the provider's default")
      .default(DEFAULT_MODEL_MAX_TOKENS),
    thinking_level: ThinkingLevelSchema.default(DEFAULT_THINKING_LEVEL),
    timeoutMs: positiveInt.default(DEFAULT_MODEL_TIMEOUT_MS),
  });

  const ApprovalSettingsSchema = z.strictObject({
    mode: z.enum(APPROVAL_MODES),
  });

  /** Limits for one task; a limit that is absent does not apply. */
  const BudgetSchema = z.strictObject({
    max_tokens: positiveInt.optional(),
    max_cost_usd: positiveNumber.optional(),
    max_wall_ms: positiveInt.optional(),
  });

  const McpCommonFields = {
    connectTimeoutMs: positiveInt.default(DEFAULT_MCP_CONNECT_TIMEOUT_MS),
    timeoutMs: z.number().int().optional(),
    maxOutputLength: z.number().int().optional(),
    /** auto: a tool's readOnlyHint decides r or rw. */
    permission: z.enum(["auto", "r", "rw"]).default("auto"),
  };

  /** How to reach one MCP server ("MCP server configs (name + config)"); core connects it (see its mcp/). */
  const McpServerConfigSchema = z.discriminatedUnion("transport", [
    z.strictObject({
      transport: z.literal("stdio"),
      command: z.string().min(1),
      args: z.array(z.string()).default([]),
      env: z.record(z.string(), z.string()).optional(),
      cwd: z.string().optional(),
      ...McpCommonFields,
    }),
    z.strictObject({
      transport: z.enum(["http", "sse"]),
      url: z.url({ protocol: /^https?$/, error: "an http(s) URL" }),
      headers: z.record(z.string(), z.string()).optional(),
      ...McpCommonFields,
    }),
  ]);

  const McpServerSchema = z.strictObject({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "a server name is 1-64 letters, digits, '_' or '-'"),
    config: McpServerConfigSchema,
  });

  /** `tools.mcpToolBudget`: how large the tool list may grow before a warning, and deferred loading. */
  const McpToolBudgetSchema = z.strictObject({
    /** A warning when the first request offers more tools than this. */
    warnToolCount: positiveInt.default(DEFAULT_MCP_WARN_TOOL_COUNT),
    /** A warning when the first request's tool list (JSON) is larger than this many bytes. */
    warnToolBytes: positiveInt.default(DEFAULT_MCP_WARN_TOOL_BYTES),
    /** auto: deferred past `deferAboveTools`; always; never. */
    deferLoading: z.enum(MCP_DEFER_LOADING_MODES).default("auto"),
    /** With `auto`: MCP tools (all servers together) offered with their schemas up to this count. */
    deferAboveTools: z.number().int().nonnegative().default(DEFAULT_MCP_DEFER_ABOVE_TOOLS),
  });

  const ToolsSectionSchema = z.strictObject({
    /** Omitted: the full default toolset. Written: replaces the defaults wholesale. */
    builtin: z.array(ToolDefinitionConfigSchema).superRefine(uniqueNames("tool")).optional(),
    /** Which defaults an omitted `builtin` means (and what `penguin config tools sync` adopts); absent: core. */
    preset: z.enum(TOOL_PRESETS).optional(),
    /** Hash-guarded writes; absent: on with the extended preset, off otherwise. */
    writeGuard: z.boolean().optional(),
    /** read_file returns images and PDF text; absent: on with the extended preset, off otherwise. */
    readFileRich: z.boolean().optional(),
    /** Caps and defaults of the extended tools; absent: every documented default. */
    limits: ToolLimitsSchema.optional(),
    mcpServers: z.array(McpServerSchema).superRefine(uniqueNames("MCP server")).default([]),
    /** Tool-list warnings and deferred loading of MCP tools; absent: every documented default. */
    mcpToolBudget: McpToolBudgetSchema.optional(),
  });

  /** `skills`: the SKILL.md folders of the agent and the workspace. */
  const SkillsSettingsSchema = z.strictObject({
    /** false: no skills are looked for, listed or loaded. */
    enabled: z.boolean().default(true),
  });

  /** The whole of `agents/<agentId>/system_config.yaml`. */
  const SystemConfigSchema = z.strictObject({
    name: z.string().optional(),
    description: z.string().optional(),
    version: positiveInt.default(1),
    system_prompt: z.string().min(1, "system_prompt is empty; remove the key to use the default").optional(),
    max_turns: z
      .number()
      .int()
      .refine((n) => n === -1 || n > 0, "use a positive number of turns, or -1 for unlimited")
      .default(DEFAULT_MAX_TURNS),
    model: ModelSettingsSchema.prefault({}),
    /** Absent: each front end uses its own default mode. */
    approval: ApprovalSettingsSchema.optional(),
    budget: BudgetSchema.optional(),
    /** When and how a long session's context is compacted (see compaction-config.ts). */
    compaction: CompactionSettingsSchema.prefault({}),
    subagent_budget: BudgetSchema.optional(),
    /** Caps of child agents (launch_agent, run_subagent): see team-config.ts. */
    child_agents: ChildAgentsSettingsSchema.prefault({}),
    /** Delivery of notices to event handlers: see team-config.ts. */
    notices: NoticesSettingsSchema.prefault({}),
    /** How command tools start their shell: see exec-config.ts. */
    exec: ExecSettingsSchema.prefault({}),
    tools: ToolsSectionSchema.prefault({}),
    /**
     * "allowed-tools": the only tools the model is offered (by name, any source). Absent: every
     * tool. A name that no tool has is a configuration error when a session is made.
     */
    allowed_tools: z.array(z.string().min(1)).superRefine(uniqueStrings("allowed_tools")).optional(),
    skills: SkillsSettingsSchema.prefault({}),
    /** Commands run before and after tool calls (see hooks-config.ts). */
    hooks: HooksSectionSchema.prefault({}),
    /** Names of environment variables whose values are redacted from logs and traces. */
    secrets: z.array(z.string().regex(ENV_NAME, "an environment variable name")).optional(),
  });
  // What something outside this accessor uses: a type, a caller, the schemas entry.
  return {
    ThinkingLevelSchema,
    BudgetSchema,
    McpServerSchema,
    McpToolBudgetSchema,
    SkillsSettingsSchema,
    SystemConfigSchema,
  };
});
type Schemas = ReturnType<typeof systemConfigSchemas>;

export type McpToolBudget = z.infer<Schemas["McpToolBudgetSchema"]>;

/** The agent's `tools.mcpToolBudget` with every absent field at its documented default. */
export function resolveMcpToolBudget(tools: { mcpToolBudget?: McpToolBudget }): McpToolBudget {
  return tools.mcpToolBudget ?? configDefault("mcpToolBudget");
}

export type SystemConfig = z.output<Schemas["SystemConfigSchema"]>;
export type SystemConfigInput = z.input<Schemas["SystemConfigSchema"]>;
export type McpServer = z.output<Schemas["McpServerSchema"]>;
/** An MCP server as written (defaults not yet filled in), e.g. one a client passes for one session. */
export type McpServerInput = z.input<Schemas["McpServerSchema"]>;
export type Budget = z.output<Schemas["BudgetSchema"]>;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

function uniqueStrings(key: string) {
  return (list: string[], ctx: z.RefinementCtx) => {
    list.forEach((value, index) => {
      if (list.indexOf(value) !== index)
        ctx.addIssue({ code: "custom", path: [index], message: `"${value}" is listed twice in ${key}` });
    });
  };
}

function uniqueNames(kind: string) {
  return (list: { name: string }[], ctx: z.RefinementCtx) => {
    const seen = new Map<string, number>();
    list.forEach((entry, index) => {
      const first = seen.get(entry.name);
      if (first === undefined) seen.set(entry.name, index);
      else {
        ctx.addIssue({
          code: "custom",
          path: [index, "name"],
          message: `duplicate ${kind} name "${entry.name}" (also at index ${first})`,
        });
      }
    });
  };
}

/** Parses the text of a system_config.yaml; `fileName` is used in error messages. */
export function parseSystemConfig(text: string, fileName: string): ConfigResult<SystemConfig> {
  return parseYamlConfig(text, fileName, systemConfigSchemas().SystemConfigSchema);
}

export function loadSystemConfig(file: string): Promise<ConfigResult<SystemConfig>> {
  return loadYamlConfig(file, () => systemConfigSchemas().SystemConfigSchema);
}

/** The configuration of a file that sets nothing (`tools.builtin` omitted = the default toolset). */
export function defaultSystemConfig(): SystemConfig {
  return configDefault("system");
}

/** The system prompt template of a config: its own, or the default. */
export function systemPromptTemplate(config: SystemConfig): string {
  return config.system_prompt ?? DEFAULT_SYSTEM_PROMPT;
}

/**
 * The tools a session built from `config` offers: the preset's definitions when `tools.builtin`
 * is omitted, otherwise exactly the list as written ("wholesale replacement, not merging"), each
 * with `call_description` applied, read_file's exceptions while rich reads are on, and the write
 * guard's rules when it is on. Names are not checked here; core reports unknown names when it
 * assembles the toolset.
 */
export function resolveToolset(config: Pick<SystemConfig, "tools">): ToolDefinitionConfig[] {
  const list = config.tools.builtin ?? presetToolDefinitions(config.tools.preset);
  const guarded = writeGuardEnabled(config.tools);
  const rich = readFileRichEnabled(config.tools);
  return list.map((definition) => {
    let assembled = applyCallDescription(definition);
    if (rich) assembled = applyRichRead(assembled);
    return guarded ? applyWriteGuard(assembled) : assembled;
  });
}

/** The limits of the extended tools for `config`, every key filled with its default when absent. */
export function resolveToolLimits(config: Pick<SystemConfig, "tools">): ToolLimits {
  return config.tools.limits ?? defaultToolLimits();
}

/**
 * The defaults as YAML, for users to copy into an agent's system_config.yaml (`penguin config
 * defaults`). Every field is written out, including the full default tool list.
 */
export function renderDefaultsYaml(): string {
  const config = defaultSystemConfig();
  return yamlFileText(
    {
      ...config,
      system_prompt: DEFAULT_SYSTEM_PROMPT,
      compaction: { ...config.compaction, prompt: DEFAULT_COMPACTION_PROMPT },
      tools: {
        // writeGuard and readFileRich are left out: absent, they follow the preset (on with `extended`).
        preset: "core",
        limits: defaultToolLimits(),
        builtin: presetToolDefinitions("core"),
        mcpServers: [],
      },
    },
    [
      "Penguin system_config.yaml defaults (see docs/configuration.md).",
      "Writing tools.builtin replaces the default toolset wholesale: keep every tool you want, each",
      "with its complete definition. Omit system_prompt to follow the built-in prompt.",
    ],
  );
}
