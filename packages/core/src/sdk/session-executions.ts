import type { SystemConfig } from "@penguin/state";
import { type AgentRecords, sessionAgents, type TraceLocation } from "@penguin/trace";
import {
  childRelauncher,
  type ExecutionSource,
  findExecutions,
  readExecutionPart,
} from "../tools/executions/index.js";
import type { Mailbox } from "../tools/messaging/index.js";
import type { TreePlace } from "./agent-seat.js";

// Retained work of a session (`session.executions()`, `session.execution()` and the execution
// tools): every agent of the top-level session's tree, read from the traces at each call.

export interface ExecutionSourceInput {
  location: TraceLocation;
  config: SystemConfig;
  /** This session's id, and its top-level session's when it is a child's. */
  sessionId: string;
  parentSessionId: string | undefined;
  tree: TreePlace | undefined;
  mailbox: Mailbox | undefined;
}

/**
 * The execution source of one agent. A task with no end is `running` when it started after the
 * tree's runtime was made in this process (the manager's `startedAt`), else `interrupted`.
 */
export function sessionExecutionSource(input: ExecutionSourceInput): ExecutionSource {
  const rootSessionId = input.parentSessionId ?? input.sessionId;
  const liveSince = input.tree?.manager.startedAt ?? new Date().toISOString();
  const source: ExecutionSource = {
    self: input.mailbox?.self ?? "root",
    read: (): { agents: AgentRecords[]; options: { liveSince: string } } => ({
      agents: sessionAgents(input.location, rootSessionId),
      options: { liveSince },
    }),
  };
  if (input.tree) source.relaunch = childRelauncher(input.tree.manager, input.config.child_agents.max_depth);
  return source;
}

export type {
  Execution,
  ExecutionFilter,
  ExecutionItem,
  ExecutionPart,
  ExecutionState,
} from "@penguin/trace";
export type { ExecutionRead, ExecutionSource } from "../tools/executions/index.js";

/** `session.executions(filter)`: the executions that pass it, or why the traces could not be read. */
export type ExecutionList = ReturnType<typeof findExecutions>;

export const executionsOf = findExecutions;
export const readExecution = readExecutionPart;
