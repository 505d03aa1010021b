import type { SessionBudget } from "../engine/limits.js";
import type { RetryPolicy } from "../engine/retry.js";
import type { FileAccess } from "../environment/file-access.js";
import type { ThinkingLevel } from "../models/types.js";
import type { Mailbox } from "../tools/messaging/hub.js";
import type { TreePlace } from "./agent-seat.js";
import type { ChosenExecutionProfile } from "./execution-profile.js";
import type { ResolvedModel } from "./model-choice.js";
import type { Session } from "./session.js";

// What a parent's subagent manager needs from the agent that makes child sessions. The Agent
// meets it; the manager (sdk/subagents.ts) is handed one, so its imports never point back at
// sdk/agent.ts.

/** Options of a child session, as the parent passes them down. */
export interface ChildSessionOptions {
  workspaceDir: string;
  thinkingLevel: ThinkingLevel;
  budget?: SessionBudget;
  retry?: Partial<RetryPolicy>;
  secrets?: string[];
  /** Where the child's file tools read and write text (its parent's seam). */
  files?: FileAccess;
  /** The child's end of the parent session's inboxes (its send_message / wait_messages). */
  mailbox?: Mailbox;
  /** A launched child's place in the agent tree (launch_agent / stop_agent work from it). */
  tree?: TreePlace;
  /** Appended to the child's system prompt (a named or inline agent's instructions). */
  instructions?: string;
  /** The tools the child is offered (plus the always-on ones); absent: its agent's. */
  allowedTools?: string[];
  /** The parent's execution profile, which the child runs under. */
  executionProfile: ChosenExecutionProfile;
}

/** What makes a session a child: its parent, its inboxes, its place in the tree, its instructions. */
export interface ChildLink {
  parentSessionId: string;
  mailbox?: Mailbox;
  tree?: TreePlace;
  instructions?: string;
}

/** An agent as a maker of subagent sessions (the Agent class is one). */
export interface ChildSessionMaker {
  readonly id: string;
  readonly dataRoot: string;
  /** A new child session of `parentSessionId`, with the parent's model or the one `model` names. */
  createSubagentSession(
    parentSessionId: string,
    model: ResolvedModel | string,
    options: ChildSessionOptions,
  ): Promise<Session>;
  /** A child session reopened from its trace. */
  resumeSubagentSession(
    sessionId: string,
    parentSessionId: string,
    parentModel: ResolvedModel,
    options: ChildSessionOptions,
  ): Promise<Session>;
  /** Another agent of the same data root (a child may run under another agent's config). */
  otherAgent(agentId: string): Promise<ChildSessionMaker>;
}

/** A child's options split into the session's own and what links it to its parent and tree. */
export function childSessionParts(options: ChildSessionOptions) {
  const { mailbox, tree, instructions, allowedTools, executionProfile, ...session } = options;
  return { session, mailbox, tree, instructions, allowedTools, executionProfile };
}
