import type { RunInput } from "@penguin/core";
import { jsonError } from "../../http/errors.js";
import { type AnyRouteSpec, errorResponse } from "../../http/route.js";
import { MAX_STEER_BODY_BYTES, MAX_TASK_BODY_BYTES } from "../../limits.js";
import {
  AbortResponseSchema,
  SteerRequestSchema,
  SteerResponseSchema,
  TaskAcceptedSchema,
  TaskRequestSchema,
} from "../schemas.js";
import {
  answerUnlessSetupFails,
  defineSessionRoute,
  IdParams,
  refuseWhileBusy,
  type SessionRoutesOptions,
  taskStateOf,
} from "./session-route.js";

/** Starting a task, steering it while it runs, and aborting it. */
export function sessionTaskRoutes(options: SessionRoutesOptions): AnyRouteSpec[] {
  const { manager } = options;

  const startTask = defineSessionRoute(options, {
    method: "post",
    path: "/api/sessions/:id/tasks",
    actsOnRuntime: manager,
    summary: "Start a task; follow it on the session's stream",
    tag: "tasks",
    params: IdParams,
    body: TaskRequestSchema,
    maxBodyBytes: MAX_TASK_BODY_BYTES,
    responses: {
      202: { description: "The task runs", schema: TaskAcceptedSchema },
      400: errorResponse("The session cannot be reopened (its workspace or config is gone)"),
      409: errorResponse(
        "task_in_progress: a task is running; steer it, abort it or wait for task_end. compacting: a compaction of the context is running; wait for compaction_end",
      ),
    },
    async handle(c, { session, body }) {
      const input: RunInput = body.images ? { text: body.input, images: body.images } : body.input;
      return answerUnlessSetupFails(c, async () => {
        const started = await manager.startTask(session, input, body.goal ? { goal: body.goal } : {});
        if (typeof started === "string") return refuseWhileBusy(c, started);
        return c.json({ session_id: session.id, task_state: started.began }, 202);
      });
    },
  });

  const steer = defineSessionRoute(options, {
    method: "post",
    path: "/api/sessions/:id/steer",
    actsOnRuntime: manager,
    summary: "Queue input for the running task (delivered with its next model request)",
    tag: "tasks",
    params: IdParams,
    body: SteerRequestSchema,
    maxBodyBytes: MAX_STEER_BODY_BYTES,
    responses: {
      202: { description: "Queued", schema: SteerResponseSchema },
      409: errorResponse("no_task: no task is running"),
    },
    handle(c, { session, body }) {
      const runtime = manager.runtime(session.id);
      if (!runtime?.steer(body.input)) return jsonError(c, 409, "no_task", "no task is running");
      return c.json({ task_state: runtime.taskState() }, 202);
    },
  });

  const abort = defineSessionRoute(options, {
    method: "post",
    path: "/api/sessions/:id/abort",
    actsOnRuntime: manager,
    summary:
      "Abort the running task and every running subagent (background ones too): waiting approvals are denied, the tasks end aborted, every process ends",
    tag: "tasks",
    params: IdParams,
    responses: { 200: { description: "The task (if any) has ended", schema: AbortResponseSchema } },
    async handle(c, { session }) {
      const aborted = (await manager.runtime(session.id)?.abort()) ?? false;
      return c.json({ aborted, task_state: taskStateOf(manager, session.id) }, 200);
    },
  });

  return [startTask, steer, abort];
}
