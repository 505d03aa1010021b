// The configuration's zod schemas as constants, for programs that use them directly (a server
// checking a request, a test making a config). The main entry builds them on first use only
// (each module's accessor); loading this entry builds them all.
import { compactionSchemas } from "./compaction-config.js";
import { execSettingsSchemas } from "./exec-config.js";
import { execProfileSchemas } from "./exec-profiles.js";
import { toolLimitsSchemas } from "./extended-tool-definitions.js";
import { hookSchemas } from "./hooks-config.js";
import { projectConfigSchemas } from "./project-config.js";
import { systemConfigSchemas } from "./system-config.js";
import { teamSchemas } from "./team-config.js";
import { toolDefinitionSchemas } from "./tools/definition-parts.js";

export const { CompactionSettingsSchema } = compactionSchemas();
export const { ExecSettingsSchema } = execSettingsSchemas();
export const { ExecutionProfileSchema } = execProfileSchemas();
export const { ToolLimitsSchema } = toolLimitsSchemas();
export const { HookEntrySchema, HooksSectionSchema } = hookSchemas();
export const { ProjectConfigSchema } = projectConfigSchemas();
export const {
  ThinkingLevelSchema,
  McpServerSchema,
  McpToolBudgetSchema,
  SkillsSettingsSchema,
  SystemConfigSchema,
} = systemConfigSchemas();
export const { ChildAgentsSettingsSchema, NoticesSettingsSchema } = teamSchemas();
export const { ToolDefinitionConfigSchema } = toolDefinitionSchemas();
