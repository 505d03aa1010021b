import { addTokenCounts, type OmniMessage } from "@penguin/protocol";
import { type Budget, type SystemConfig, scratchpadRoot, tracesDir } from "@penguin/state";
import { readSession } from "@penguin/trace";
import type { RetryPolicy } from "../engine/retry.js";
import type { ConversationState } from "../engine/types.js";
import type { FileAccess } from "../environment/file-access.js";
import type { ThinkingLevel } from "../models/types.js";
import {
  DEFAULT_INBOX_LIMITS,
  type IdNumbers,
  type Mailbox,
  MessageHub,
  nextIdNumbers,
} from "../tools/messaging/index.js";
import {
  type ChildPlacement,
  type ChildSessionRequest,
  SubagentManager,
  type SubagentPointer,
} from "../tools/subagent/index.js";
import { restoreRootInbox, treePointers } from "./agent-tree-restore.js";
import type { ChildSessionMaker, ChildSessionOptions } from "./child-sessions.js";
import type { ChosenExecutionProfile } from "./execution-profile.js";
import type { ResolvedModel } from "./model-choice.js";
import type { Session } from "./session.js";
import type { SessionAssembly } from "./session-assembly.js";
import { sessionBudget } from "./session-limits.js";

/**
 * How a parent session makes its subagents. "The child Session follows the parent Session — its
 * model (unless model_id/provider pick another), thinking level, and Workspace — never the
 * Project defaults": the child shares the parent's model adapter (so a recorded or replayed
 * session replays its children from the same cassette), thinking level, workspace, retry timing
 * and extra secrets. `agent_id` picks another agent's system_config; its toolset never has the
 * subagent tools (depth is capped at 1).
 *
 * Budgets: the parent agent's `subagent_budget` (when configured) limits each child session;
 * otherwise the child agent's own `budget` applies. Every child request's token usage (and cost)
 * is also counted into the parent session's totals, so the parent's `token_usage.session` and its
 * budget cover what its subagents spent; `token_usage.request` stays the parent's own request.
 */
export interface SubagentParent {
  agent: ChildSessionMaker;
  sessionId: string;
  resolved: ResolvedModel;
  workspaceDir: string;
  /**
   * The thinking level of the parent's task now running ("the child Session follows the parent
   * Session — its model, thinking level, and Workspace"): a run may override the session's.
   */
  thinkingLevel: () => ThinkingLevel;
  /** The parent agent's `subagent_budget`. */
  subagentBudget?: Budget;
  /** Child sessions kept (`child_agents.max_sessions`); default 8. */
  maxSessions?: number;
  /** Launched children running at once (`child_agents.max_running`). */
  maxRunning?: number;
  retry?: Partial<RetryPolicy>;
  secrets?: string[];
  /** Where the parent's file tools read and write text: its children's do the same. */
  files?: FileAccess;
  state: ConversationState;
  /** Pointer events of a resumed parent's trace (its launched children's traces add theirs). */
  pointers?: readonly SubagentPointer[];
  /** A resumed parent's first free message and question numbers (see `nextIdNumbers`). */
  firstNumbers?: IdNumbers;
  /** "Children run where their parent runs": the parent's execution profile, whatever their agent's config says. */
  executionProfile: ChosenExecutionProfile;
}

export function createSubagentManager(parent: SubagentParent): SubagentManager {
  const location = {
    tracesDir: tracesDir(parent.agent.dataRoot),
    scratchpadRoot: scratchpadRoot(parent.agent.dataRoot),
  };
  const childOptions = (): ChildSessionOptions => {
    const options: ChildSessionOptions = {
      workspaceDir: parent.workspaceDir,
      thinkingLevel: parent.thinkingLevel(),
      executionProfile: parent.executionProfile,
    };
    if (parent.subagentBudget) options.budget = sessionBudget(parent.subagentBudget);
    if (parent.retry) options.retry = parent.retry;
    if (parent.secrets) options.secrets = parent.secrets;
    if (parent.files) options.files = parent.files;
    return options;
  };
  const agentFor = (agentId: string | undefined) =>
    agentId === undefined || agentId === parent.agent.id
      ? Promise.resolve(parent.agent)
      : parent.agent.otherAgent(agentId);

  const readTrace = (sessionId: string) => readSession(location, sessionId).records;
  // The whole tree of a resumed session: its children, and what its launched children launched.
  const pointers = treePointers(parent.pointers ?? [], readTrace);
  // A launched child works in the tree of the top-level session (its seat is on this manager); a
  // run_subagent child has no place in it ("their contract caps their depth at 1").
  const placeOf = (placement: ChildPlacement) =>
    placement.launched ? { tree: { manager, depth: placement.depth } } : {};
  const manager: SubagentManager = new SubagentManager({
    maxSessions: parent.maxSessions,
    maxRunning: parent.maxRunning,
    messages: new MessageHub(DEFAULT_INBOX_LIMITS, firstNumbers(parent, pointers, readTrace)),
    launcher: {
      async create(
        request: ChildSessionRequest,
        mailbox: Mailbox,
        placement: ChildPlacement,
      ): Promise<Session> {
        const agent = await agentFor(request.agentId);
        const model = request.model ? `${request.model.provider}/${request.model.modelId}` : parent.resolved;
        return agent.createSubagentSession(parent.sessionId, model, {
          ...childOptions(),
          mailbox,
          ...placeOf(placement),
          ...(request.instructions !== undefined ? { instructions: request.instructions } : {}),
          ...(request.allowedTools ? { allowedTools: request.allowedTools } : {}),
        });
      },
      async resume(sessionId: string, mailbox: Mailbox, placement: ChildPlacement): Promise<Session> {
        const meta = readTrace(sessionId)[0];
        const agentId = meta?.type === "session_meta" ? meta.payload.agent_id : undefined;
        const agent = await agentFor(agentId);
        return agent.resumeSubagentSession(sessionId, parent.sessionId, parent.resolved, {
          ...childOptions(),
          mailbox,
          ...placeOf(placement),
        });
      },
      readTrace,
    },
    onUsage(request, costUsd) {
      parent.state.sessionTokens = addTokenCounts(parent.state.sessionTokens, request);
      if (costUsd !== undefined) parent.state.sessionCostUsd = (parent.state.sessionCostUsd ?? 0) + costUsd;
    },
  });
  if (pointers.length > 0) {
    manager.restore(pointers);
    restoreRootInbox(manager, parent.sessionId, pointers, readTrace);
  }
  return manager;
}

/**
 * The first free message and question numbers of a resumed parent: past the ids of its own trace
 * and of each child's (a child's sends and questions are in the child's trace only). A child trace
 * that cannot be read adds nothing.
 */
function firstNumbers(
  parent: SubagentParent,
  pointers: readonly SubagentPointer[],
  readTrace: (sessionId: string) => readonly OmniMessage[],
): IdNumbers {
  const first = { message: 1, question: 1, ...parent.firstNumbers };
  for (const pointer of pointers) {
    try {
      const child = nextIdNumbers(readTrace(pointer.sessionId));
      first.message = Math.max(first.message, child.message);
      first.question = Math.max(first.question, child.question);
    } catch {}
  }
  return first;
}

export { subagentPointers } from "./agent-tree-restore.js";

/** What a child inherits from its parent session's own options. */
export function inheritedOptions(options: {
  retry?: Partial<RetryPolicy>;
  secrets?: string[];
  files?: FileAccess;
}): Pick<SubagentParent, "retry" | "secrets" | "files"> {
  return { retry: options.retry, secrets: options.secrets, files: options.files };
}

/** A top-level session's subagent manager: children follow the task now running. */
export function sessionSubagentManager(
  agent: ChildSessionMaker,
  config: SystemConfig,
  input: SessionAssembly,
  thinkingLevel: () => ThinkingLevel,
): SubagentManager {
  return createSubagentManager({
    agent,
    sessionId: input.id,
    resolved: input.resolved,
    workspaceDir: input.workspaceDir,
    thinkingLevel,
    subagentBudget: config.subagent_budget,
    maxSessions: config.child_agents.max_sessions,
    maxRunning: config.child_agents.max_running,
    ...inheritedOptions(input.options),
    state: input.state,
    pointers: input.pointers,
    firstNumbers: input.firstNumbers,
    executionProfile: input.executionProfile,
  });
}
