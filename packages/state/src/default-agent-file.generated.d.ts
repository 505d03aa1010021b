/** The text of `system_config.yaml` for an agent created without a config (scripts/gen-default-agent.ts). */
export declare const DEFAULT_AGENT_FILE_TEXT: string;
