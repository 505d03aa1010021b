import { CONFIG_DEFAULTS_JSON } from "./config-defaults.generated.js";
import type { ExecutionProfile } from "./exec-profiles.js";
import type { ToolLimits } from "./extended-tool-definitions.js";
import type { HooksSection } from "./hooks-config.js";
import type { ProjectConfig } from "./project-config.js";
import type { McpToolBudget, SystemConfig } from "./system-config.js";

/**
 * The configuration a start needs when a file sets nothing, made at build time from the schemas
 * (scripts/gen-config-defaults.ts) so that the start builds none of them: building the schemas of
 * system_config.yaml and project.yaml (some 430 zod schemas) to learn their defaults took about
 * 20 ms of every `penguin run` before its first model request. test/config-defaults.test.ts fails
 * while the checked-in values differ from what the schemas give.
 */
export interface ConfigDefaults {
  /** A system_config.yaml that sets nothing (`tools.builtin` omitted: the default toolset). */
  system: SystemConfig;
  /** The default agent's file as a user's first run writes it: its preset's tools written out. */
  defaultAgent: SystemConfig;
  /** A project.yaml that sets nothing (no models, the default guardrail). */
  project: ProjectConfig;
  toolLimits: ToolLimits;
  hooks: HooksSection;
  mcpToolBudget: McpToolBudget;
  /** The built-in execution profiles (`native`, `sandbox`) as if written with only their kind. */
  nativeProfile: ExecutionProfile;
  sandboxProfile: ExecutionProfile;
}

export type ConfigDefaultName = keyof ConfigDefaults;

/** A fresh copy of one default: a caller may change it without changing what the next caller gets. */
export function configDefault<K extends ConfigDefaultName>(name: K): ConfigDefaults[K] {
  return JSON.parse(CONFIG_DEFAULTS_JSON[name]) as ConfigDefaults[K];
}
