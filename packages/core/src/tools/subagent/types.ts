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
  readonly processes?: { endLiveGroups(): Promise<number> };
}

/**
 * What run_subagent asks for (another agent's configuration and/or another model), and what
 * launch_agent adds: the instructions of a named or inline agent and the tools it may use.
 */
export interface ChildSessionRequest {
  agentId?: string;
  model?: { provider: string; modelId: string };
  /** Appended to the child's system prompt: the named agent's body, or the inline instructions. */
  instructions?: string;
  /** The tools the child is offered (the always-on ones are added); absent: its agent's. */
  allowedTools?: string[];
}

/** Where a child sits in the session's agent tree. */
export interface ChildPlacement {
  /** The agent run id of the agent that started it (`root` or `sub_N`). */
  parent: string;
  /** Levels below the root: a child of the root is 1. */
  depth: number;
  /** The named agent it runs (launch_agent's `agent`); absent otherwise. */
  agent?: string;
  /** Started by launch_agent (its end is reported to its launcher), not by run_subagent. */
  launched: boolean;
}

/**
 * Makes child sessions for one parent session. The SDK implements it: the child follows the
 * parent session (model, thinking level, workspace), gets its own trace (session_meta `source:
 * "subagent"`, `parent_session_id`) and no subagent tools (depth is capped at 1).
 */
export interface SubagentLauncher {
  /**
   * A new child session at `placement` in the tree, whose messaging tools send and wait through
   * `mailbox` (a launched child may launch children while its depth allows). Throws an Error
   * whose message the model can read (unknown agent, model...).
   */
  create(request: ChildSessionRequest, mailbox: Mailbox, placement: ChildPlacement): Promise<ChildSession>;
  /** Reopens a child session from its trace (a follow-up after the parent session was resumed). */
  resume(sessionId: string, mailbox: Mailbox, placement: ChildPlacement): Promise<ChildSession>;
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
  /** The agent run id of the agent that started it (`root` or `sub_N`), to draw the tree. */
  parent: string;
  /** Levels below the root: a child of the root is 1. */
  depth: number;
  /** The named agent it runs (launch_agent's `agent`). */
  agent?: string;
}

/** A child's task ended (`SubagentManager.onChildFinished`). */
export interface ChildFinished {
  agentRunId: string;
  parent: string;
  outcome: TaskOutcome;
  /** Started by launch_agent (false: by run_subagent). */
  launched: boolean;
  agent?: string;
}

/** Usage of one child request, counted into the parent session's totals. */
export type UsageSink = (request: TokenCounts, requestCostUsd: number | undefined) => void;
