import type { SystemConfigInput } from "./system-config.js";
import { presetToolDefinitions } from "./tool-registry.js";
import { yamlFileText } from "./yaml-file-text.js";

const FILE_HEADER = [
  "Penguin agent configuration (see docs/configuration.md).",
  "tools.builtin is written out in full and is frozen: tools that Penguin adds later are not",
  "picked up automatically. `penguin config tools sync` adds the missing default entries.",
  "Omit system_prompt to follow the built-in prompt.",
];

/** `config` with its preset's full tool list written out, unless it brings its own `tools.builtin`. */
export function withPresetTools(config: SystemConfigInput): SystemConfigInput {
  return {
    ...config,
    tools: { ...config.tools, builtin: config.tools?.builtin ?? presetToolDefinitions(config.tools?.preset) },
  };
}

/** The text of a new agent's `system_config.yaml`: the header comment, then `config` as YAML. */
export function agentFileText(config: SystemConfigInput): string {
  return yamlFileText(config, FILE_HEADER);
}
