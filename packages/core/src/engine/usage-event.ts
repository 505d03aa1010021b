import { addTokenCounts, type OmniMessage, tokenUsage } from "@penguin/protocol";
import type { ModelOutcome } from "../models/types.js";
import { type ModelPrices, requestCostUsd } from "./limits.js";
import type { ConversationState } from "./types.js";

/** Adds a request's usage (and cost) to the session's totals and returns its `token_usage` event. */
export function usageEvent(
  state: ConversationState,
  outcome: ModelOutcome,
  prices: ModelPrices | undefined,
): OmniMessage {
  state.sessionTokens = addTokenCounts(state.sessionTokens, outcome.usage);
  if (!prices) return tokenUsage(outcome.usage, state.sessionTokens);
  const requestCost = requestCostUsd(outcome.usage, prices);
  state.sessionCostUsd = (state.sessionCostUsd ?? 0) + requestCost;
  return tokenUsage(outcome.usage, state.sessionTokens, {
    request_cost_usd: requestCost,
    session_cost_usd: state.sessionCostUsd,
  });
}
