import { z } from "zod";
import { commonSchemas } from "./common.js";
import { fieldSchemas } from "./fields.js";
import { onFirstUse } from "./on-first-use.js";

// The events of agents that work together (launch_agent, stop_agent, ask, notices). Each is
// recorded in the trace of the agent that did or received the thing, with the ids that connect
// the traces: `agent_run_id` (`root` or `sub_N`), `question_id`, `notice_id`. Messages between
// agents are `message_sent` / `message_delivered` (events.ts).

/** The schemas of this module, built on the first call (on-first-use.ts). */
export const agentEventSchemas = onFirstUse(() => {
  const { StopReasonSchema } = commonSchemas();
  const { anyString, nonEmptyString, nonNegativeInt, optionalNonNegativeInt, optionalString } =
    fieldSchemas();

  /**
   * launch_agent started a child (in the launcher's trace, beside the `subagent` pointer to the
   * child's trace). `agent` is the named agent it runs; absent for an inline definition.
   */
  const AgentLaunchedPayloadSchema = z.looseObject({
    type: z.literal("agent_launched"),
    agent_run_id: nonEmptyString,
    /** The agent run id of the launcher (`root` or `sub_N`). */
    parent: nonEmptyString,
    /** The child's own session (its trace). */
    session_id: nonEmptyString,
    /** Levels below the root: a child of the root is 1. */
    depth: z.number().int().positive(),
    agent: optionalString,
    /** The task it was given. */
    task: anyString,
    tool_call_id: optionalString,
  });

  /** stop_agent stopped a child and its descendants (in the caller's trace). */
  const AgentStoppedPayloadSchema = z.looseObject({
    type: z.literal("agent_stopped"),
    agent_run_id: nonEmptyString,
    /** Every agent that was stopped, the named one first, then its descendants. */
    stopped: z.array(anyString),
    /** Commands and jobs (process groups) that were ended. */
    processes_ended: nonNegativeInt,
    reason: optionalString,
    tool_call_id: optionalString,
  });

  /**
   * A child's task ended (in its parent's trace when the parent next reaches a boundary, and as the
   * `agent.finished` notice). `interrupted`: found running in the trace of a resumed session.
   */
  const AgentFinishedPayloadSchema = z.looseObject({
    type: z.literal("agent_finished"),
    agent_run_id: nonEmptyString,
    status: z.union([StopReasonSchema, z.literal("interrupted")]),
    message: optionalString,
    /** The message that told the launcher (its `message_delivered` has the same id). */
    message_id: optionalString,
    /** The launcher's wait_messages call that received it. */
    tool_call_id: optionalString,
  });

  /**
   * `ask` put a question (in the asker's trace; a question to the user is also a pending question
   * of the session's stream until answered). `to` is the parent's agent run id, or `user`.
   */
  const QuestionAskedPayloadSchema = z.looseObject({
    type: z.literal("question_asked"),
    question_id: nonEmptyString,
    from: nonEmptyString,
    to: nonEmptyString,
    text: anyString,
    tool_call_id: optionalString,
  });

  /**
   * A question was answered (in the asker's trace; the answerer's send_message records its own
   * `message_sent`). `from` is the answering agent's run id, or `user`.
   */
  const QuestionAnsweredPayloadSchema = z.looseObject({
    type: z.literal("question_answered"),
    question_id: nonEmptyString,
    from: nonEmptyString,
    text: anyString,
    tool_call_id: optionalString,
  });

  /**
   * A notice was handed to the model (at a turn boundary, or as the prompt of a `wake` turn). Its
   * content is data from outside the agent, quoted to the model, never instructions.
   */
  const NoticeDeliveredPayloadSchema = z.looseObject({
    type: z.literal("notice_delivered"),
    notice_id: nonEmptyString,
    /** The notice's type, e.g. `deploy.done`; `job.` and `agent.` are Penguin's own. */
    notice_type: nonEmptyString,
    /** The handler (`.agents/events/<name>.md`) that took it. */
    handler: nonEmptyString,
    delivery: z.enum(["queue", "wake"]),
    summary: anyString,
    data: z.unknown().optional(),
    /** Older pending notices dropped before this one (the queue is bounded). */
    dropped_before: optionalNonNegativeInt,
  });
  return {
    AgentLaunchedPayloadSchema,
    AgentStoppedPayloadSchema,
    AgentFinishedPayloadSchema,
    QuestionAskedPayloadSchema,
    QuestionAnsweredPayloadSchema,
    NoticeDeliveredPayloadSchema,
  };
});
type Schemas = ReturnType<typeof agentEventSchemas>;
export type AgentLaunchedPayload = z.infer<Schemas["AgentLaunchedPayloadSchema"]>;
export type AgentStoppedPayload = z.infer<Schemas["AgentStoppedPayloadSchema"]>;
export type AgentFinishedPayload = z.infer<Schemas["AgentFinishedPayloadSchema"]>;
export type QuestionAskedPayload = z.infer<Schemas["QuestionAskedPayloadSchema"]>;
export type QuestionAnsweredPayload = z.infer<Schemas["QuestionAnsweredPayloadSchema"]>;
export type NoticeDeliveredPayload = z.infer<Schemas["NoticeDeliveredPayloadSchema"]>;
