import { z } from "zod";
import { jsonError } from "../../http/errors.js";
import { type AnyRouteSpec, errorResponse } from "../../http/route.js";
import { callStanding, recoveryOf, sessionScratchpad } from "../recovery.js";
import { RecoveryResponseSchema, ResolveRequestSchema, ResolveResponseSchema } from "../recovery-schemas.js";
import { readTrace } from "../trace-reads.js";
import {
  answerUnlessSetupFails,
  defineSessionRoute,
  IdParams,
  type SessionRoutesOptions,
  taskStateOf,
} from "./session-route.js";

/** Tool call ids are the model's or the provider's: any short text without control characters. */
const ToolCallIdSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[^\p{Cc}]+$/u, "a tool call id has no control characters")
  .describe("The uncertain tool call");

/** Bytes of a resolve body: the evidence (4096 characters, up to 4 bytes each as JSON-escaped UTF-8) and room. */
const MAX_RESOLVE_BODY_BYTES = 6 * 4096 + 4096;

/** What a crash may have left half done in a session: its uncertain steps and the decisions taken. */
export function sessionRecoveryRoutes(options: SessionRoutesOptions): AnyRouteSpec[] {
  const { manager } = options;

  const recovery = defineSessionRoute(options, {
    method: "get",
    path: "/api/sessions/:id/recovery",
    actsOnRuntime: manager,
    summary:
      "The session's uncertain steps (tool calls started with no result recorded, not yet resolved) with Penguin's own check, the decisions taken on such steps, and the commands and jobs of its process registry (nothing is signalled)",
    tag: "sessions",
    params: IdParams,
    responses: {
      200: {
        description: "Uncertain and resolved steps, retained processes",
        schema: RecoveryResponseSchema,
      },
    },
    async handle(c, { session }) {
      const running = taskStateOf(manager, session.id).state === "running";
      const reading = readTrace(manager.location, session.id);
      const scratchpad = sessionScratchpad(manager.location, session.id);
      return c.json(await recoveryOf(reading, scratchpad, running), 200);
    },
  });

  const resolve = defineSessionRoute(options, {
    method: "post",
    path: "/api/sessions/:id/recovery/:toolCallId/resolve",
    actsOnRuntime: manager,
    summary:
      "Record the user's decision on an uncertain step (accept: it happened; retry: it must be redone) with what they checked; Penguin records its own check next to it",
    tag: "sessions",
    params: z.object({ id: IdParams.shape.id, toolCallId: ToolCallIdSchema }),
    body: ResolveRequestSchema,
    maxBodyBytes: MAX_RESOLVE_BODY_BYTES,
    responses: {
      200: { description: "The decision, as recorded in the trace", schema: ResolveResponseSchema },
      400: errorResponse("invalid_request: bad body. invalid_session: the session cannot be reopened"),
      409: errorResponse(
        "task_in_progress: the running task started the call, it may still finish. not_uncertain: the call has its result, was refused, or is already resolved",
      ),
      422: errorResponse("unknown_call: the session's trace holds no such tool call"),
    },
    async handle(c, { session, params, body }) {
      if (body.session_id === undefined) {
        const running = taskStateOf(manager, session.id).state === "running";
        const standing = callStanding(readTrace(manager.location, session.id), params.toolCallId, running);
        if (standing === "unknown") {
          return jsonError(c, 422, "unknown_call", `no tool call ${params.toolCallId} in this session`);
        }
        if (standing === "in_progress") {
          return jsonError(
            c,
            409,
            "task_in_progress",
            "the running task started this call and it may still finish; wait for task_end or abort the task",
          );
        }
      }
      return answerUnlessSetupFails(c, async () => {
        const outcome = await manager.resolve(session, {
          toolCallId: params.toolCallId,
          decision: body.decision,
          evidence: body.evidence,
          ...(body.session_id !== undefined ? { sessionId: body.session_id } : {}),
        });
        if (!outcome.ok) return jsonError(c, 409, "not_uncertain", outcome.message);
        const { resolution, entry } = outcome;
        return c.json(
          {
            tool_call_id: resolution.tool_call_id,
            name: entry.name,
            decision: resolution.decision,
            evidence: resolution.evidence,
            by: "user" as const,
            ...(resolution.verified !== undefined ? { verified: resolution.verified } : {}),
            ...(resolution.session_id !== undefined ? { session_id: resolution.session_id } : {}),
          },
          200,
        );
      });
    },
  });

  return [recovery, resolve];
}
