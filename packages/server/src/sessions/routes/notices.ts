import type { NoticeInput } from "@penguin/core";
import { jsonError } from "../../http/errors.js";
import { type AnyRouteSpec, errorResponse } from "../../http/route.js";
import { MAX_NOTICE_BODY_BYTES } from "../../limits.js";
import { NoticeAcceptedSchema, NoticeRequestSchema } from "../schemas.js";
import {
  answerUnlessSetupFails,
  defineSessionRoute,
  IdParams,
  type SessionRoutesOptions,
} from "./session-route.js";

// Notices from outside ("Events are notices from outside (SDK `session.notify(...)`, server route,
// CLI)"): the session's event handlers take them, and the model reads them as quoted data.

export function sessionNoticeRoutes(options: SessionRoutesOptions): AnyRouteSpec[] {
  const { manager } = options;
  const notify = defineSessionRoute(options, {
    method: "post",
    path: "/api/sessions/:id/notices",
    actsOnRuntime: manager,
    summary:
      "Hand a notice to the session's event handlers (.agents/events/<name>.md): delivered at the next turn boundary, or it starts a turn (a wake handler, when the session is idle)",
    tag: "tasks",
    params: IdParams,
    body: NoticeRequestSchema,
    maxBodyBytes: MAX_NOTICE_BODY_BYTES,
    responses: {
      202: { description: "Taken by a handler", schema: NoticeAcceptedSchema },
      400: errorResponse("The session cannot be reopened (its workspace or config is gone)"),
      413: errorResponse("too_large: the summary is over 4 KiB or the data over 64 KiB as JSON"),
      422: errorResponse(
        "no_handler: no event handler takes the type. reserved_type: job. and agent. are Penguin's own. invalid: the type is not dot-separated words",
      ),
    },
    async handle(c, { session, body }) {
      const input: NoticeInput = {
        type: body.type,
        summary: body.summary,
        ...(body.data !== undefined ? { data: body.data } : {}),
      };
      return answerUnlessSetupFails(c, async () => {
        const outcome = await manager.notify(session, input);
        if (outcome.status === "refused") {
          return jsonError(c, outcome.reason === "too_large" ? 413 : 422, outcome.reason, outcome.message);
        }
        return c.json(
          { notice_id: outcome.noticeId, handler: outcome.handler, delivery: outcome.delivery },
          202,
        );
      });
    },
  });
  return [notify];
}
