import type { Budget, SystemConfig } from "@penguin/state";
import type { ModelPrices, SessionBudget } from "../engine/limits.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../engine/retry.js";
import type { AgentLogger } from "./agent-options.js";
import type { ResolvedModel } from "./model-choice.js";
import { SetupError } from "./setup-error.js";

// The limits a session runs under: its budget and prices, retry timing, model requests per task
// and output cap, from the options given in code over the agent's config.

/** A configured budget (the agent's `budget` or a parent's `subagent_budget`) as the engine's limits. */
export function sessionBudget(budget: Budget): SessionBudget {
  return { maxTokens: budget.max_tokens, maxCostUsd: budget.max_cost_usd, maxWallMs: budget.max_wall_ms };
}

function budgetOf(config: SystemConfig): SessionBudget | undefined {
  return config.budget ? sessionBudget(config.budget) : undefined;
}

/**
 * A cost budget asked for in code needs prices to be a limit at all: without them it would be
 * silently ignored ("crossing one ends the task … instead of silently spending on").
 */
export function refuseUnpricedCostBudget(
  options: { budget?: SessionBudget; prices?: ModelPrices },
  resolved: ResolvedModel,
): void {
  if (options.budget?.maxCostUsd === undefined || (options.prices ?? resolved.prices) !== undefined) return;
  const { provider, modelId } = resolved.adapter.info;
  throw new SetupError(
    `a cost budget (budget.maxCostUsd) needs the model's prices, and ${provider}/${modelId} has none: add prices to its model entry in the project config, or pass prices to createSession`,
    "config",
  );
}

export interface SessionLimits {
  prices?: ModelPrices;
  budget?: SessionBudget;
  retry: RetryPolicy;
  maxTurns?: number;
  maxOutputTokens?: number;
}

export interface SessionLimitsInput {
  agentId: string;
  sessionId: string;
  config: SystemConfig;
  resolved: ResolvedModel;
  options: {
    budget?: SessionBudget;
    prices?: ModelPrices;
    retry?: Partial<RetryPolicy>;
    maxTurns?: number;
  };
  logger: AgentLogger;
}

/** The session's limits; a configured cost budget without prices is a warning (see below). */
export function sessionLimits(input: SessionLimitsInput): SessionLimits {
  const { config, options, resolved } = input;
  const prices = options.prices ?? resolved.prices;
  const budget = options.budget ?? budgetOf(config);
  if (budget?.maxCostUsd !== undefined && prices === undefined) {
    // From the config (the agent's budget or a parent's subagent_budget): it covers models
    // with and without prices (a local model costs nothing), so it is a warning here.
    const info = resolved.adapter.info;
    input.logger.warn(
      `agent ${input.agentId}: the cost budget ($${budget.maxCostUsd}) does not apply to session ${input.sessionId}: the project config has no prices for ${info.provider}/${info.modelId} (add prices to its model entry)`,
    );
  }
  const retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const maxTurns = options.maxTurns ?? (config.max_turns > 0 ? config.max_turns : undefined);
  // A model entry's max_tokens is that model's output cap: it wins over the agent's.
  const maxTokens = resolved.maxTokens ?? config.model.max_tokens;
  return { prices, budget, retry, maxTurns, maxOutputTokens: maxTokens > 0 ? maxTokens : undefined };
}
