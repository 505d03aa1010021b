import { z } from "zod";
import { jsonError, notFound } from "../../http/errors.js";
import { SessionIdSchema } from "../../http/ids.js";
import { type AnyRouteSpec, errorResponse } from "../../http/route.js";
import {
  AnswerRequestSchema,
  AnswerResponseSchema,
  PendingQuestionsResponseSchema,
  QuestionIdSchema,
} from "../schemas.js";
import { traceRecords } from "../trace-reads.js";
import { defineSessionRoute, IdParams, type SessionRoutesOptions } from "./session-route.js";

/** The agent's questions to the user (`ask`) that wait, and the answer to one of them. */
export function sessionQuestionRoutes(options: SessionRoutesOptions): AnyRouteSpec[] {
  const { manager } = options;

  const questions = defineSessionRoute(options, {
    method: "get",
    path: "/api/sessions/:id/questions",
    actsOnRuntime: manager,
    summary: "Questions of the session's agent that wait for the user's answer, oldest first",
    tag: "questions",
    params: IdParams,
    responses: { 200: { description: "Waiting questions", schema: PendingQuestionsResponseSchema } },
    handle: (c, { session }) =>
      c.json({ questions: manager.runtime(session.id)?.questions.list() ?? [] }, 200),
  });

  const answer = defineSessionRoute(options, {
    method: "post",
    path: "/api/sessions/:id/questions/:questionId/answer",
    actsOnRuntime: manager,
    summary:
      "Answer a waiting question of the agent (its ask returns the text; question_answered in the trace)",
    tag: "questions",
    params: z.object({ id: SessionIdSchema, questionId: QuestionIdSchema }),
    body: AnswerRequestSchema,
    responses: {
      200: { description: "Answered", schema: AnswerResponseSchema },
      404: errorResponse("No such session, or no question waits under this id"),
      409: errorResponse("already_answered: the question was answered or withdrawn (timed out, interrupted)"),
    },
    handle(c, { session, params, body }) {
      const result =
        manager.runtime(session.id)?.questions.answer(params.questionId, body.text) ?? "not_pending";
      if (result === "answered") return c.json({ question_id: params.questionId, text: body.text }, 200);
      if (result === "already_answered" || askedInTrace(manager.location, session.id, params.questionId)) {
        return jsonError(
          c,
          409,
          "already_answered",
          "this question no longer waits: it was answered, or its asker stopped waiting",
        );
      }
      return notFound(c, "no question waits for an answer under this id");
    },
  });

  return [questions, answer];
}

/** Whether the session's trace holds question `id` (asked before the server restarted, say). */
function askedInTrace(location: Parameters<typeof traceRecords>[0], sessionId: string, id: string): boolean {
  return traceRecords(location, sessionId).some(
    (record) =>
      record.type === "event_msg" &&
      record.payload.type === "question_asked" &&
      (record.payload as { question_id?: unknown }).question_id === id,
  );
}
