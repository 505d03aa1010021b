import type {
  CompleteModelPayload,
  OmniMessage,
  TokenCounts,
  ToolCallOutputPayload,
  ToolCallPayload,
} from "@penguin/protocol";
import type { SessionPlan } from "@penguin/trace";
import type { Approver } from "../approval/approver.js";
import type { RoundCall } from "../environment/current-directory.js";

export type ModelMessage = OmniMessage<CompleteModelPayload>;
export type ToolCallMessage = OmniMessage<ToolCallPayload>;
export type ToolOutputMessage = OmniMessage<ToolCallOutputPayload>;

/** What the engine needs of the Environment: run a call (never throws), and deny one. */
export interface ToolHost {
  executeTool(
    call: ToolCallMessage,
    options: {
      signal?: AbortSignal;
      approve?: Approver;
      round?: () => Promise<readonly RoundCall[]>;
      /**
       * Records a journal event (`tool_dispatched`, `tool_effect`) durably before the tool goes on;
       * what it returns for `tool_dispatched` is awaited before the tool starts (a failure there
       * ends the call as failed, the tool not run).
       */
      journal?: (message: OmniMessage) => void | Promise<void>;
    },
  ): AsyncGenerator<OmniMessage, unknown, undefined>;
  deniedOutput(call: ToolCallMessage, reason?: "user" | "policy"): ToolOutputMessage;
  /**
   * A user message entered the conversation in the middle of a task (steering, once delivered):
   * what the write guard knows was read is from before it ("a read … earlier in the same task
   * (since the last user message)").
   */
  userMessageDelivered?(): void;
}

/**
 * A session's model context and counters; it lives as long as the session object and carries
 * over from one task (run) to the next.
 */
export interface ConversationState {
  /** Complete model messages in context order: every request sends all of them. */
  messages: ModelMessage[];
  sessionTokens: TokenCounts;
  sessionCostUsd?: number;
  /** Committed model requests over the whole session. */
  turns: number;
  /** Milliseconds spent running tasks in this session object (for the wall-clock budget). */
  activeMs: number;
  /** Messages to add (and trace) at the start of the next task: the carry-over found on resume. */
  pendingNotes: ModelMessage[];
  /** Committed model requests in the current context (since the last compaction). */
  contextTurns?: number;
  /** The last committed request's total tokens (input and output): the `context` compaction trigger. */
  lastRequestTotal?: number;
  /** The user's messages of the task in progress (or the last task): they survive a compaction. */
  taskInput?: ModelMessage[];
  /** A compaction failed since the last turn: it is tried again after the next one. */
  compactionDeferred?: boolean;
  /** The model's latest checklist and the latest proposed plan (sdk/session-plan.ts keeps it). */
  plan?: SessionPlan;
}

/** A message that joins the context at a turn boundary, with the event that records its delivery. */
export interface BoundaryDelivery {
  event: OmniMessage;
  message: ModelMessage;
}

/**
 * Input besides steering that reaches the model at a turn boundary (a session's notices): taken
 * before each model request of a task, the first one included.
 */
export interface BoundaryInput {
  take(): BoundaryDelivery[];
}
