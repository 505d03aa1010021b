import { findModel, type ModelPrices, type ProjectConfig, parseModelRef } from "@penguin/state";
import type { DescribeImageFn } from "../environment/types.js";
import { createModelAdapter } from "../models/registry.js";
import type { ModelAdapter } from "../models/types.js";
import { DEFAULT_IDLE_TIMEOUT_MS } from "../models/wire-control.js";
import { SetupError } from "./setup-error.js";

/** A session's model and what the project config says about it. */
export interface ResolvedModel {
  adapter: ModelAdapter;
  contextWindow?: number;
  prices?: ModelPrices;
  /** The model entry's `max_tokens`: when set, requests ask for this instead of the agent's. */
  maxTokens?: number;
  describeImage?: DescribeImageFn;
}

/** What the agent's `model` settings add to every adapter it makes. */
export interface ModelConnectionSettings {
  /** system_config `model.timeoutMs`: how long one model request may wait on the provider. */
  timeoutMs?: number;
}

/**
 * The model of a session: an adapter given in code, a replay cassette (`replay:FILE`), or a
 * `provider/model-id` of the project config (its key, base URL, context window, output cap and
 * prices). Throws an error that says what is wrong with the reference.
 */
export function resolveModel(
  model: string | ModelAdapter,
  project: ProjectConfig,
  settings: ModelConnectionSettings = {},
): ResolvedModel {
  if (typeof model !== "string") return { adapter: model, contextWindow: model.info.contextWindow };
  const created = createModelAdapter(model, { project, ...requestTimeouts(settings.timeoutMs) });
  if (!created.ok) throw new SetupError(`cannot use model "${model}": ${created.error}`, "model");
  const ref = parseModelRef(model);
  const entry = ref ? findModel(project, ref.provider, ref.modelId) : undefined;
  return {
    adapter: created.adapter,
    contextWindow: entry?.context_window ?? created.adapter.info.contextWindow,
    prices: entry?.prices,
    ...(entry?.max_tokens !== undefined ? { maxTokens: entry.max_tokens } : {}),
  };
}

/**
 * The adapter timeouts for `model.timeoutMs`: the wait for the provider's response, and the
 * longest silence in its stream, which must not outlast the whole allowance either.
 */
export function requestTimeouts(timeoutMs: number | undefined): {
  timeoutMs?: number;
  idleTimeoutMs?: number;
} {
  if (timeoutMs === undefined) return {};
  return { timeoutMs, idleTimeoutMs: Math.min(timeoutMs, DEFAULT_IDLE_TIMEOUT_MS) };
}
