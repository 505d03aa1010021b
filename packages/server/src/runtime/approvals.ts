import {
  type Approver,
  type AskFn,
  type HumanAnswer,
  policyForMode,
  ruleCoversCall,
  type SessionRule,
  suggestedPrefixOf,
} from "@penguin/core";
import type { OmniMessage, ToolCallPayload } from "@penguin/protocol";
import type { ApprovalMode } from "@penguin/state";
import { RECENT_DECISIONS_KEPT } from "../limits.js";

/** A tool call that waits for a human, as the API and the `approval_request` event show it. */
export interface PendingApproval {
  tool_call_id: string;
  tool_call: OmniMessage<ToolCallPayload>;
  /** Set when a subagent made the call: its session id (outer to inner). */
  origin?: string[];
  requested_at: string;
  /** For a command a prefix rule can cover: the prefix a front end offers to allow. */
  suggested_prefix?: string;
}

/**
 * A person's answer through the API: allow, maybe with a rule for the rest of the session (the
 * call's own tool, or a command prefix), or deny, maybe with a reason the model reads.
 */
export interface HumanDecision {
  decision: "allow" | "deny";
  reason?: string;
  remember?: "tool" | { commandPrefix: string };
}

interface Waiter {
  view: PendingApproval;
  resolve(answer: HumanAnswer): void;
}

/** `rule_not_covering`: the rule to remember would not allow the waiting call itself (nothing decided). */
export type DecideResult = "decided" | "not_pending" | "already_decided" | "rule_not_covering";

/**
 * The calls of one session that wait for a human. "Manual routes register a pending promise
 * keyed by tool_call_id, publish approval_request, and wait without timeout": a call waits until
 * someone answers through the API, or the task is aborted (every waiting call is then denied).
 */
export class PendingApprovals {
  readonly #waiting = new Map<string, Waiter[]>();
  readonly #decided = new Set<string>();

  constructor(private readonly onRequest: (pending: PendingApproval) => void) {}

  /** Registers a call and resolves with the human's answer (deny when `signal` aborts first). */
  ask(
    call: OmniMessage<ToolCallPayload>,
    origin: string[] | undefined,
    signal?: AbortSignal,
  ): Promise<HumanAnswer> {
    const id = call.payload.tool_call_id;
    return new Promise<HumanAnswer>((resolve) => {
      const view: PendingApproval = {
        tool_call_id: id,
        tool_call: call,
        requested_at: new Date().toISOString(),
      };
      if (origin && origin.length > 0) view.origin = origin;
      const prefix = suggestedPrefixOf(call);
      if (prefix !== undefined) view.suggested_prefix = prefix;
      const waiter: Waiter = {
        view,
        resolve: (answer) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(answer);
        },
      };
      const onAbort = () => this.#settle(id, waiter, { decision: "deny", reason: "the task was aborted" });
      if (signal?.aborted) return resolve({ decision: "deny", reason: "the task was aborted" });
      signal?.addEventListener("abort", onAbort, { once: true });
      const list = this.#waiting.get(id) ?? [];
      list.push(waiter);
      this.#waiting.set(id, list);
      this.onRequest(view);
    });
  }

  /**
   * A human's answer to the oldest call waiting under `toolCallId`. `already_decided` when this
   * runtime decided that id before, `not_pending` when it never waited here.
   */
  decide(toolCallId: string, answer: HumanDecision): DecideResult {
    const waiter = this.#waiting.get(toolCallId)?.[0];
    if (!waiter) return this.#decided.has(toolCallId) ? "already_decided" : "not_pending";
    const call = waiter.view.tool_call;
    const rule: SessionRule | undefined =
      answer.remember === "tool" ? { tool: call.payload.name } : answer.remember;
    if (rule && !ruleCoversCall(rule, call)) return "rule_not_covering";
    this.#settle(toolCallId, waiter, {
      decision: answer.decision,
      ...(answer.reason ? { reason: answer.reason } : {}),
      ...(rule ? { remember: rule } : {}),
    });
    return "decided";
  }

  /** Denies every waiting call (the task was aborted or the session is going away). */
  denyAll(reason: string): void {
    for (const [id, waiters] of [...this.#waiting]) {
      for (const waiter of [...waiters]) this.#settle(id, waiter, { decision: "deny", reason });
    }
  }

  /** Waiting calls, oldest first. */
  list(): PendingApproval[] {
    return [...this.#waiting.values()]
      .flat()
      .map((waiter) => waiter.view)
      .sort((a, b) => a.requested_at.localeCompare(b.requested_at));
  }

  get size(): number {
    let count = 0;
    for (const waiters of this.#waiting.values()) count += waiters.length;
    return count;
  }

  #settle(id: string, waiter: Waiter, answer: HumanAnswer): void {
    const list = this.#waiting.get(id);
    if (!list) return;
    const index = list.indexOf(waiter);
    if (index === -1) return;
    list.splice(index, 1);
    if (list.length === 0) this.#waiting.delete(id);
    this.#decided.add(id);
    if (this.#decided.size > RECENT_DECISIONS_KEPT) {
      const oldest = this.#decided.values().next().value;
      if (oldest !== undefined) this.#decided.delete(oldest);
    }
    waiter.resolve(answer);
  }
}

/**
 * The approval policy of a server session. "The mode is re-read from the DB on every decision, so
 * changes take effect immediately": each decision reads the session's `approval_mode` first and
 * then decides exactly as that mode's policy from `@penguin/core` does (so the trace records
 * `source: {kind: "mode", name}` or `{kind: "human"}` as for any other front end). A call already
 * waiting for a human keeps waiting when the mode changes; the next call uses the new mode.
 * A session that no longer has a row (deleted) denies.
 *
 * `initial` is the mode the session had when its task started: the SDK reads `mode` before the
 * first decision (plan mode changes the task itself), so it must not wait for a decision.
 */
export function databaseModePolicy(
  readMode: () => Promise<ApprovalMode | undefined>,
  ask: AskFn,
  initial: ApprovalMode,
): Approver {
  let current: ApprovalMode = initial;
  return {
    /** The mode of the latest decision (`initial` before the first). */
    get mode() {
      return current;
    },
    async decide(call, context) {
      current = (await readMode()) ?? "deny-all";
      return policyForMode(current, ask).decide(call, context);
    },
  };
}
