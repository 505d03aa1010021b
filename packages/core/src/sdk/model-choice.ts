import { findModel, type ModelPrices, type ProjectConfig, parseModelRef } from "@penguin/state";
import type { DescribeImageFn } from "../environment/types.js";
import { createModelAdapter } from "../models/registry.js";
import type { ModelAdapter } from "../models/types.js";
import { SetupError } from "./setup-error.js";

/** A session's model and what the project config says about it. */
export interface ResolvedModel {
  adapter: ModelAdapter;
  contextWindow?: number;
  prices?: ModelPrices;
  describeImage?: DescribeImageFn;
}

/**
 * The model of a session: an adapter given in code, a replay cassette (`replay:FILE`), or a
 * `provider/model-id` of the project config (its key, base URL, context window and prices).
 * Throws an error that says what is wrong with the reference.
 */
export function resolveModel(model: string | ModelAdapter, project: ProjectConfig): ResolvedModel {
  if (typeof model !== "string") return { adapter: model, contextWindow: model.info.contextWindow };
  const created = createModelAdapter(model, { project });
  if (!created.ok) throw new SetupError(`cannot use model "${model}": ${created.error}`, "model");
  const ref = parseModelRef(model);
  const entry = ref ? findModel(project, ref.provider, ref.modelId) : undefined;
  return {
    adapter: created.adapter,
    contextWindow: entry?.context_window ?? created.adapter.info.contextWindow,
    prices: entry?.prices,
  };
}
