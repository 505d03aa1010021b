import type { OmniMessage, StopReason, TokenCounts } from "@penguin/protocol";
import type { Approver } from "../../approval/approver.js";
import type { Mailbox } from "../messaging/hub.js";

/** How a child's task is run: the parent's approval, an interrupt, and who wrote the prompt. */
export interface ChildRunOptions {
  approve?: Approver;
  signal?: AbortSignal;
  /** The prompt's sender in the child's context and trace. */
  sender?: "parent_agent";
}

/** A child session as the subagent tools drive it; the SDK's `Session` is one. */
export interface ChildSession {
  readonly id: string;
  /** Runs one task; yields every message (the child's own, untagged) and ends with `task_end`. */
  run(input: string, options: ChildRunOptions): AsyncIterable<OmniMessage>;
  /** Interrupts a running task, ends the child's processes and closes its trace. */
  dispose(): Promise<void>;
  /**
   * The child's command sessions (the SDK's `Session` has them), so stopping a child can end the
   * commands it runs without disposing it.
   */
  readonly processes?: { liveIds(): string[]; kill(id: string): Promise<boolean> };
}

/** What run_subagent asks for: another agent's configuration and/or another model. */
export interface ChildSessionRequest {
  agentId?: string;
  model?: { provider: string; modelId: string };
}

/**
 * Makes child sessions for one parent session. The SDK implements it: the child follows the
 * parent session (model, thinking level, workspace), gets its own trace (session_meta `source:
 * "subagent"`, `parent_session_id`) and no subagent tools (depth is capped at 1).
 */
export interface SubagentLauncher {
  /**
   * A new child session, whose messaging tools send and wait through `mailbox`. Throws an Error
   * whose message the model can read (unknown agent, model...).
   */
  create(request: ChildSessionRequest, mailbox: Mailbox): Promise<ChildSession>;
  /** Reopens a child session from its trace (a follow-up after the parent session was resumed). */
  resume(sessionId: string, mailbox: Mailbox): Promise<ChildSession>;
  /** The records of a child's trace; throws when it cannot be read. */
  readTrace(sessionId: string): readonly OmniMessage[];
}

/** How a child's most recent task ended (its `task_end`). */
export interface TaskOutcome {
  status: StopReason;
  message?: string;
}

/**
 * - `running`: a task is in progress.
 * - `idle`: the last task ended (completed or not); a follow-up prompt is accepted.
 * - `interrupted`: found in the trace of a resumed parent, running when the previous process
 *   ended; it is not resurrected (a follow-up prompt resumes it from its trace).
 * - `disposed`: ended with the parent session, or evicted.
 */
export type SubagentStatus = "running" | "idle" | "interrupted" | "disposed";

/** A subagent as front ends list it. */
export interface SubagentInfo {
  subagentId: string;
  sessionId: string;
  status: SubagentStatus;
  lastTask?: TaskOutcome;
  /** Calls of the child waiting for an approval decision. */
  pendingApprovals: { toolCallId: string; name: string }[];
}

/** Usage of one child request, counted into the parent session's totals. */
export type UsageSink = (request: TokenCounts, requestCostUsd: number | undefined) => void;
