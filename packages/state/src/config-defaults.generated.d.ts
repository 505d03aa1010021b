/** The text of `system_config.yaml` for an agent created without a config (scripts/gen-config-defaults.ts). */
export declare const DEFAULT_AGENT_FILE_TEXT: string;
/** Each default of config-defaults.ts as JSON text (scripts/gen-config-defaults.ts). */
export declare const CONFIG_DEFAULTS_JSON: Readonly<
  Record<import("./config-defaults.js").ConfigDefaultName, string>
>;
