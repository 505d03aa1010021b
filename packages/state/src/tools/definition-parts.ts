import type { ToolParameters } from "../tool-definitions.js";

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
