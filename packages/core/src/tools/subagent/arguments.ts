import {
  clampYieldTime,
  optionalMilliseconds,
  optionalString,
  type Parsed,
  requiredString,
} from "../command/call-arguments.js";
import {
  DEFAULT_FOLLOW_UP_YIELD_MS,
  DEFAULT_POLL_YIELD_MS,
  DEFAULT_RUN_YIELD_MS,
  MIN_SUBAGENT_YIELD_MS,
} from "./limits.js";

/**
 * Argument checks of run_subagent and input_subagent. The Environment validates arguments
 * against the (user-editable) JSON Schema first; these checks still run so that a bad value
 * comes back as a message the model can act on, never as an exception.
 */

export interface RunSubagentArgs {
  prompt: string;
  agentId?: string;
  model?: { provider: string; modelId: string };
  windowMs: number;
}

export interface InputSubagentArgs {
  subagentId: string;
  /** Undefined (or empty in the call): a poll. */
  prompt?: string;
  windowMs: number;
}

export function parseRunSubagentArgs(
  args: Record<string, unknown>,
  timeoutMs: number,
): Parsed<RunSubagentArgs> {
  const prompt = requiredString(args, "prompt");
  if (!prompt.ok) return prompt;
  const agentId = optionalString(args, "agent_id");
  if (!agentId.ok) return agentId;
  const modelId = optionalString(args, "model_id");
  if (!modelId.ok) return modelId;
  const provider = optionalString(args, "provider");
  if (!provider.ok) return provider;
  const requested = optionalMilliseconds(args, "yield_time_ms");
  if (!requested.ok) return requested;

  const hasModel = nonEmpty(modelId.value);
  const hasProvider = nonEmpty(provider.value);
  // "provider … required whenever model_id is given"; "omit both to inherit the parent Session's model".
  if (hasModel && !hasProvider) {
    return {
      ok: false,
      error: `argument "model_id" (${JSON.stringify(modelId.value)}) needs "provider", the provider group it belongs to; omit both to use this session's model`,
    };
  }
  if (hasProvider && !hasModel) {
    return {
      ok: false,
      error: `argument "provider" (${JSON.stringify(provider.value)}) is given without "model_id"; pass both, or omit both to use this session's model`,
    };
  }
  const value: RunSubagentArgs = {
    prompt: prompt.value,
    windowMs: clampYieldTime({
      requested: requested.value,
      fallback: DEFAULT_RUN_YIELD_MS,
      min: MIN_SUBAGENT_YIELD_MS,
      timeoutMs,
    }),
  };
  if (nonEmpty(agentId.value)) value.agentId = agentId.value.trim();
  if (nonEmpty(modelId.value) && nonEmpty(provider.value)) {
    value.model = { provider: provider.value.trim(), modelId: modelId.value.trim() };
  }
  return { ok: true, value };
}

export function parseInputSubagentArgs(
  args: Record<string, unknown>,
  timeoutMs: number,
): Parsed<InputSubagentArgs> {
  const subagentId = requiredString(args, "subagent_id");
  if (!subagentId.ok) return subagentId;
  const prompt = optionalString(args, "prompt");
  if (!prompt.ok) return prompt;
  const requested = optionalMilliseconds(args, "yield_time_ms");
  if (!requested.ok) return requested;
  const isFollowUp = nonEmpty(prompt.value);
  const value: InputSubagentArgs = {
    subagentId: subagentId.value.trim(),
    windowMs: clampYieldTime({
      requested: requested.value,
      fallback: isFollowUp ? DEFAULT_FOLLOW_UP_YIELD_MS : DEFAULT_POLL_YIELD_MS,
      min: MIN_SUBAGENT_YIELD_MS,
      timeoutMs,
    }),
  };
  if (isFollowUp) value.prompt = prompt.value;
  return { ok: true, value };
}

function nonEmpty(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== "";
}
