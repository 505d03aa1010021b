import { ApprovalModeSchema as ApprovalModeValues, OmniMessageSchema } from "@penguin/protocol/schemas";
import { z } from "zod";
import { SafeIdSchema } from "../http/ids.js";
import { allUsersParameter } from "../http/list-scope.js";
import {
  MAX_COMMAND_PREFIX_CHARS,
  MAX_DENY_REASON_CHARS,
  MAX_IMAGE_URL_CHARS,
  MAX_TASK_IMAGES,
  MAX_TASK_INPUT_CHARS,
  MAX_TITLE_CHARS,
} from "../limits.js";

/** The modes a server session can be in: every approval mode, plan mode included. */
export const ApprovalModeSchema = ApprovalModeValues.describe(
  "allow-all: every call runs; deny-all: none runs; read-only: tools with permission r run, the rest wait for a human; always-ask: every call waits for a human; plan: tools with permission r run, the rest are refused, and the task's answer is proposed as the plan (POST /api/sessions/:id/plan/approve carries it out)",
);

// Rules are written as patterns, not refinements, so the OpenAPI document states them too.
const TitleSchema = z
  .string()
  .max(MAX_TITLE_CHARS)
  .regex(/^[^\r\n]*$/, "a title is one line");

export const SessionSchema = z.object({
  id: z.string(),
  user_id: z.string(),
  title: z.string(),
  agent_id: z.string(),
  workspace: z.string().describe("The resolved absolute path of the workspace folder"),
  provider: z.string(),
  model_id: z.string(),
  approval_mode: ApprovalModeSchema,
  execution_profile: z
    .string()
    .describe(
      "Where its tools run: native (as the server's user), sandbox, or a profile of its agent's config",
    ),
  state: z.enum(["idle", "running"]).describe("running: a task or a compaction runs (task_state says which)"),
  created_at: z.string(),
  updated_at: z.string(),
});

export const SessionResponseSchema = z.object({ session: SessionSchema });
export const SessionListItemSchema = SessionSchema.extend({
  cost_usd: z
    .number()
    .nullable()
    .describe("What its model requests cost so far (as GET /api/usage sums it); null when no price is known"),
  total_tokens: z.number().int().nonnegative().describe("Tokens of its model requests so far"),
});

export const SessionListResponseSchema = z.object({
  sessions: z
    .array(SessionListItemSchema)
    .describe("updated_at is when the session last changed: a task started or ended, a rename"),
});

export const CreateSessionRequestSchema = z.strictObject({
  workspace: z
    .string()
    .min(1)
    .max(4096)
    .regex(/^\//, "an absolute path")
    .describe("Absolute path of an existing folder inside one of the server's workspaceRoots"),
  model: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .describe('"provider/model-id" from the project config; default: its default_model'),
  approval_mode: ApprovalModeSchema.optional().describe("Default: the agent's approval.mode, else allow-all"),
  agent_id: SafeIdSchema.optional().describe(
    'The agent whose system_config.yaml configures the session; default "default"',
  ),
  title: TitleSchema.optional(),
  execution_profile: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "a profile name")
    .optional()
    .describe(
      "The execution profile its tools run under (GET /api/execution-profiles lists them); default: the agent's exec.profile. Fixed for the session's lifetime",
    ),
});

export const PatchSessionRequestSchema = z
  .strictObject({ approval_mode: ApprovalModeSchema.optional(), title: TitleSchema.optional() })
  .refine(
    (body) => body.approval_mode !== undefined || body.title !== undefined,
    "set approval_mode or title",
  )
  // The refinement above, as the document says it (a key set to undefined cannot come from JSON).
  .meta({ minProperties: 1 });

export const ListSessionsQuerySchema = z.object({
  all: allUsersParameter("Admins only: true lists every user's sessions"),
});

const ImageSchema = z
  .string()
  .max(MAX_IMAGE_URL_CHARS)
  .regex(
    /^(?:data:image\/[a-z0-9+.-]+;base64,[A-Za-z0-9+/=]*|https?:\/\/[!#-[\]-~]+)$/,
    "a data:image/…;base64 URL or an http(s) URL (printable ASCII)",
  );

export const GoalRequestSchema = z
  .strictObject({
    budget: z
      .number()
      .int()
      .positive()
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .describe(
        "Tokens the goal may spend (total minus cache reads, subagents included); once spent, one wrap-up round. Default: no budget (the round cap still applies)",
      ),
  })
  .describe(
    "Runs the task in goal mode: the input is an objective worked on round after round until the model marks the goal complete or blocked, the budget is spent or the round cap is reached; the task ends with a goal_finished event",
  );

export const TaskRequestSchema = z.strictObject({
  input: z
    .string()
    .min(1)
    .max(MAX_TASK_INPUT_CHARS)
    .describe("What the user asks (in goal mode: the objective)"),
  images: z.array(ImageSchema).max(MAX_TASK_IMAGES).optional(),
  goal: GoalRequestSchema.optional(),
});

export const TaskStateSchema = z.object({
  state: z
    .enum(["idle", "running", "compacting"])
    .describe("running: a task runs; compacting: a compaction of the context runs"),
  pendingSteering: z.number().int().nonnegative(),
});

export const TaskAcceptedSchema = z.object({ session_id: z.string(), task_state: TaskStateSchema });

export const CompactAcceptedSchema = z.object({ session_id: z.string(), task_state: TaskStateSchema });

export const SteerRequestSchema = z.strictObject({
  input: z.string().min(1).max(MAX_TASK_INPUT_CHARS),
});
export const SteerResponseSchema = z.object({ task_state: TaskStateSchema });

/** `POST /api/sessions/:id/notices`: a notice for the session's event handlers. */
export const NoticeRequestSchema = z.strictObject({
  type: z
    .string()
    .min(1)
    .max(200)
    .describe("The notice's type, e.g. deploy.done (job. and agent. are Penguin's own)"),
  summary: z.string().min(1).describe("What happened, in a few lines (at most 4 KiB)"),
  data: z.unknown().optional().describe("Any JSON value (at most 64 KiB as JSON)"),
});
export const NoticeAcceptedSchema = z.object({
  notice_id: z.string(),
  handler: z.string().describe("The event handler (.agents/events/<handler>.md) that took it"),
  delivery: z.enum(["queue", "wake"]),
});

export const AbortResponseSchema = z.object({
  aborted: z.boolean().describe("Whether a task was running"),
  task_state: TaskStateSchema,
});

const ToolCallEnvelopeSchema = z.object({
  timestamp: z.string(),
  type: z.literal("model_msg"),
  payload: z.looseObject({
    type: z.literal("tool_call"),
    name: z.string(),
    arguments: z.string(),
    tool_call_id: z.string(),
  }),
  origin: z.array(z.string()).optional(),
});

export const PendingApprovalSchema = z.object({
  tool_call_id: z.string(),
  tool_call: ToolCallEnvelopeSchema,
  origin: z.array(z.string()).optional().describe("Set when a subagent made the call: its session id"),
  requested_at: z.string(),
  suggested_prefix: z
    .string()
    .optional()
    .describe(
      "For a command a prefix rule can cover: the prefix a front end offers to allow for the session",
    ),
});

export const PendingApprovalsResponseSchema = z.object({ approvals: z.array(PendingApprovalSchema) });

export const PendingQuestionSchema = z.object({
  question_id: z.string().describe("q_N, as the question_asked event of the trace names it"),
  text: z.string(),
  tool_call_id: z.string().describe("The ask call that waits for the answer"),
  asked_at: z.string(),
});

export const PendingQuestionsResponseSchema = z.object({ questions: z.array(PendingQuestionSchema) });

export const QuestionIdSchema = z.string().regex(/^q_[1-9][0-9]{0,15}$/, "a question id: q_ and a number");

export const AnswerRequestSchema = z.strictObject({
  text: z.string().min(1).max(MAX_TASK_INPUT_CHARS).describe("The answer; the agent's ask returns it"),
});
export const AnswerResponseSchema = z.object({ question_id: z.string(), text: z.string() });

export const DecisionRequestSchema = z
  .strictObject({
    decision: z.enum(["allow", "deny"]),
    reason: z
      .string()
      .trim()
      .min(1)
      .max(MAX_DENY_REASON_CHARS)
      .optional()
      .describe("With deny: why, in the person's words; the model reads it with the denial"),
    remember: z
      .union([
        z.strictObject({ tool: z.literal(true) }).describe("Allow every call of this call's tool"),
        z
          .strictObject({ command_prefix: z.string().min(1).max(MAX_COMMAND_PREFIX_CHARS) })
          .describe("Allow every command that starts with this prefix; it must cover this call"),
      ])
      .optional()
      .describe("With allow: a rule for the rest of the session"),
  })
  .refine((body) => body.decision === "allow" || body.remember === undefined, {
    message: "remember goes with allow only",
    path: ["remember"],
  })
  .refine((body) => body.decision === "deny" || body.reason === undefined, {
    message: "reason goes with deny only",
    path: ["reason"],
  });
export const DecisionResponseSchema = z.object({
  tool_call_id: z.string(),
  decision: z.enum(["allow", "deny"]),
});

export const ToolCallIdSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[A-Za-z0-9_.:#-]+$/, "a tool call id: letters, digits, '_', '.', ':', '#' or '-'");

export const OpenPartialStreamSchema = z.object({
  key: z.string(),
  kind: z.enum(["partial_text", "partial_thinking", "partial_tool_call", "partial_tool_call_output"]),
  origin: z.array(z.string()).optional(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
  role: z.enum(["user", "assistant"]).optional(),
  content: z.string(),
  images: z.array(z.string()).optional(),
  started_at: z.string(),
});

export const MessagesResponseSchema = z.object({
  messages: z
    .array(OmniMessageSchema)
    .describe("The trace's records (complete messages and events; session_meta and tool lists left out)"),
  partial: z
    .array(OpenPartialStreamSchema)
    .describe(
      "The running task's open streams (PartialAggregator snapshot): seed a client's aggregator with it",
    ),
  task_state: TaskStateSchema,
  approvals: z.array(PendingApprovalSchema),
  questions: z
    .array(PendingQuestionSchema)
    .describe("The agent's questions to the user that wait for an answer"),
  last_event_id: z
    .string()
    .optional()
    .describe("The stream's newest event id when this answer was made: live events after it are new"),
  context_window: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("The model's context window in tokens, where the project config states it"),
});

const DiagnosticSchema = z.object({
  path: z.string(),
  line: z.number(),
  kind: z.string(),
  message: z.string(),
});

export const TraceResponseSchema = z.object({
  records: z.array(OmniMessageSchema),
  diagnostics: z.array(DiagnosticSchema).describe("Lines of the trace that could not be read"),
});

export const AuditEntrySchema = z.object({
  timestamp: z.string(),
  toolCallId: z.string(),
  decision: z.enum(["allow", "deny", "forbidden"]),
  source: z.looseObject({ kind: z.string(), name: z.string().optional() }).optional(),
  reason: z.string().optional(),
  toolName: z.string().optional(),
  arguments: z.string().optional(),
  outcome: z.string().optional(),
  origin: z.array(z.string()).optional(),
});
export const AuditResponseSchema = z.object({ audit: z.array(AuditEntrySchema) });

export const ProcessSchema = z.object({
  id: z.string(),
  cmd: z.string(),
  cwd: z.string(),
  pid: z.number().optional(),
  status: z.string(),
  exit: z.looseObject({ kind: z.string() }).optional(),
  started_at: z.string(),
  last_used_at: z.string(),
});
export const ProcessListResponseSchema = z.object({ processes: z.array(ProcessSchema) });
