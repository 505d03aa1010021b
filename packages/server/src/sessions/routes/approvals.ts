import { approvalAudit } from "@penguin/trace";
import { z } from "zod";
import { jsonError, notFound } from "../../http/errors.js";
import { SessionIdSchema } from "../../http/ids.js";
import { type AnyRouteSpec, errorResponse } from "../../http/route.js";
import {
  AuditResponseSchema,
  DecisionRequestSchema,
  DecisionResponseSchema,
  PendingApprovalsResponseSchema,
  ToolCallIdSchema,
} from "../schemas.js";
import { traceRecords } from "../trace-reads.js";
import { defineSessionRoute, IdParams, type SessionRoutesOptions } from "./session-route.js";

/** The calls waiting for a human, the decision on one of them, and the audit of every decision. */
export function sessionApprovalRoutes(options: SessionRoutesOptions): AnyRouteSpec[] {
  const { manager } = options;

  const approvals = defineSessionRoute(options, {
    method: "get",
    path: "/api/sessions/:id/approvals",
    actsOnRuntime: manager,
    summary: "Tool calls waiting for a human decision, oldest first",
    tag: "approvals",
    params: IdParams,
    responses: { 200: { description: "Waiting calls", schema: PendingApprovalsResponseSchema } },
    handle: (c, { session }) =>
      c.json({ approvals: manager.runtime(session.id)?.approvals.list() ?? [] }, 200),
  });

  const audit = defineSessionRoute(options, {
    method: "get",
    path: "/api/sessions/:id/approvals/audit",
    summary: "Every approval decision of the session, with its call and outcome",
    tag: "approvals",
    params: IdParams,
    responses: { 200: { description: "The audit", schema: AuditResponseSchema } },
    handle: (c, { session }) =>
      c.json({ audit: approvalAudit(traceRecords(manager.location, session.id)) }, 200),
  });

  const decide = defineSessionRoute(options, {
    method: "post",
    path: "/api/sessions/:id/approvals/:toolCallId",
    actsOnRuntime: manager,
    summary: "Allow or deny a waiting tool call (recorded in the trace with source human)",
    tag: "approvals",
    params: z.object({ id: SessionIdSchema, toolCallId: ToolCallIdSchema }),
    body: DecisionRequestSchema,
    responses: {
      200: { description: "Decided", schema: DecisionResponseSchema },
      400: errorResponse("The command prefix to remember does not cover this call"),
      404: errorResponse("No such session, or no call waits under this id"),
      409: errorResponse("already_decided: the call has been decided"),
    },
    handle(c, { session, params, body }) {
      const { decision, reason, remember } = body;
      const rule =
        remember === undefined
          ? undefined
          : "tool" in remember
            ? "tool"
            : { commandPrefix: remember.command_prefix };
      const result =
        manager
          .runtime(session.id)
          ?.approvals.decide(params.toolCallId, { decision, reason, remember: rule }) ?? "not_pending";
      if (result === "rule_not_covering") {
        return jsonError(c, 400, "invalid_request", "the command prefix does not cover this call's command");
      }
      if (result === "decided") return c.json({ tool_call_id: params.toolCallId, decision }, 200);
      const inTrace = approvalAudit(traceRecords(manager.location, session.id)).some(
        (entry) => entry.toolCallId === params.toolCallId,
      );
      if (result === "already_decided" || inTrace) {
        return jsonError(c, 409, "already_decided", "this tool call has already been decided");
      }
      return notFound(c, "no tool call waits for a decision under this id");
    },
  });

  return [approvals, audit, decide];
}
