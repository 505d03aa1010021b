import type { OmniMessage } from "@penguin/protocol";

/** Token counts and cost summed over some model requests. */
export interface UsageTotals {
  requests: number;
  totalTokens: number;
  outputTokens: number;
  /** Absent while no request had known prices. */
  costUsd?: number;
}

/** A session's usage as its `token_usage` events report it. */
export interface SessionUsage {
  session: UsageTotals;
  /** Each finished task's usage, by the chat item key (`r<index>`) of its `task_end` record. */
  tasks: Record<string, UsageTotals>;
  /** The newest request's tokens (its prompt and reply): how full the context is now. */
  contextTokens?: number;
}

const empty = (): UsageTotals => ({ requests: 0, totalTokens: 0, outputTokens: 0 });

function add(into: UsageTotals, payload: Record<string, unknown>): void {
  const request = payload.request as { total?: number; output?: number } | undefined;
  into.requests += 1;
  into.totalTokens += request?.total ?? 0;
  into.outputTokens += request?.output ?? 0;
  if (typeof payload.request_cost_usd === "number")
    into.costUsd = (into.costUsd ?? 0) + payload.request_cost_usd;
}

/**
 * Sums the session's own `token_usage` events (a subagent's, which carry an origin, are its own
 * session's), per session and per task: a task's requests are those since the previous task ended.
 */
export function usageOf(records: readonly OmniMessage[]): SessionUsage {
  const session = empty();
  const tasks: Record<string, UsageTotals> = {};
  let task = empty();
  let contextTokens: number | undefined;
  records.forEach((message, index) => {
    if (message.type !== "event_msg" || message.origin?.length) return;
    const payload = message.payload as { type: string; [field: string]: unknown };
    if (payload.type === "token_usage") {
      add(session, payload);
      add(task, payload);
      const total = (payload.request as { total?: number } | undefined)?.total;
      if (typeof total === "number") contextTokens = total;
    } else if (payload.type === "task_end") {
      tasks[`r${index}`] = task;
      task = empty();
    }
  });
  return { session, tasks, ...(contextTokens !== undefined ? { contextTokens } : {}) };
}

const count = new Intl.NumberFormat("en-US");

/** "1,234 tokens · $0.0123" (the cost only where prices are known). */
export function usageText(totals: UsageTotals): string {
  const tokens = `${count.format(totals.totalTokens)} tokens`;
  return totals.costUsd === undefined ? tokens : `${tokens} · ${formatUsd(totals.costUsd)}`;
}

/** Dollars with enough digits that a cheap request does not read as $0.00. */
export function formatUsd(amount: number): string {
  return `$${amount < 1 ? amount.toFixed(4) : amount.toFixed(2)}`;
}

export { count as tokenCount };
