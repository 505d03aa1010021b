import { RevertBusyError, SessionHeldError } from "@penguin/core";
import { jsonError } from "../../http/errors.js";
import { type AnyRouteSpec, errorResponse } from "../../http/route.js";
import { listChangeSets, oneChangeSet, revertTarget } from "../changes.js";
import {
  ChangesQuerySchema,
  ChangesResponseSchema,
  RevertRequestSchema,
  RevertResponseSchema,
} from "../changes-schemas.js";
import {
  defineSessionRoute,
  IdParams,
  refuseWhileBusy,
  type SessionRoutesOptions,
  taskStateOf,
} from "./session-route.js";

/**
 * A session's file changes per task, and their revert: the checkpoints its file tools took. The
 * client names a change set only; every path comes from the session's trace.
 */
export function sessionChangesRoutes(options: SessionRoutesOptions): AnyRouteSpec[] {
  const { manager } = options;

  const changes = defineSessionRoute(options, {
    method: "get",
    path: "/api/sessions/:id/changes",
    summary:
      "The session's change sets (its tasks' file changes and its reverts), newest first, each with the files it added, changed, moved and removed, their line counts and whether it was reverted; ?task= one change set, &diff=1 with its unified diff",
    tag: "sessions",
    params: IdParams,
    query: ChangesQuerySchema,
    responses: {
      200: { description: "The change sets", schema: ChangesResponseSchema },
      422: errorResponse("unknown_change_set: the session has no such change set"),
    },
    async handle(c, { session, query }) {
      const { dataRoot, location } = manager;
      if (query.task === undefined)
        return c.json({ change_sets: await listChangeSets(dataRoot, location, session.id) }, 200);
      const diff = query.diff === "1" || query.diff === "true";
      const row = await oneChangeSet(dataRoot, session.id, query.task, diff);
      if (!row) return jsonError(c, 422, "unknown_change_set", `no change set ${query.task} in this session`);
      return c.json({ change_sets: [row] }, 200);
    },
  });

  const revert = defineSessionRoute(options, {
    method: "post",
    path: "/api/sessions/:id/revert",
    actsOnRuntime: manager,
    summary:
      "Revert a change set's files to how they were before it (default: the newest task not reverted), or with dry_run preview it. A path changed since is left alone and listed as a conflict with both hashes, unless force. The revert is recorded (changes_reverted on the stream and in the trace) and is itself a change set that can be reverted",
    tag: "sessions",
    params: IdParams,
    body: RevertRequestSchema,
    responses: {
      200: {
        description: "What was (or would be) restored, and the conflicts",
        schema: RevertResponseSchema,
      },
      400: errorResponse("invalid_request: bad body"),
      409: errorResponse(
        "task_in_progress: a task (or another revert) is running; wait for task_end. compacting: a compaction is running. session_held: another process (a penguin chat) has the session open",
      ),
      422: errorResponse(
        "unknown_change_set: the session has no such change set. nothing_to_revert: every task is reverted or none changed files",
      ),
    },
    async handle(c, { session, body }) {
      // The files of a running task are still changing: one task or revert at a time.
      const state = taskStateOf(manager, session.id).state;
      if (state !== "idle") return refuseWhileBusy(c, state === "compacting" ? "compacting" : "busy");
      const target = revertTarget(manager.dataRoot, session.id, body.task);
      if ("refused" in target) {
        return target.refused === "nothing_to_revert"
          ? jsonError(c, 422, "nothing_to_revert", "no task of this session has file changes left to revert")
          : jsonError(c, 422, "unknown_change_set", `no change set ${body.task} in this session`);
      }
      const outcome = await manager
        .revert(session, target.changeSet, { dryRun: body.dry_run === true, force: body.force === true })
        .catch((error: unknown) => {
          // Another process (a `penguin chat` on this machine) has the session open.
          if (error instanceof SessionHeldError || error instanceof RevertBusyError) return error;
          throw error;
        });
      if (outcome instanceof SessionHeldError) return jsonError(c, 409, "session_held", outcome.message);
      // A subagent of the session still at work in the background.
      if (outcome instanceof RevertBusyError) return jsonError(c, 409, "task_in_progress", outcome.message);
      if (outcome === "busy" || outcome === "compacting") return refuseWhileBusy(c, outcome);
      if (!outcome)
        return jsonError(c, 422, "unknown_change_set", `no change set ${target.changeSet} in this session`);
      return c.json(
        {
          session_id: session.id,
          reverted: outcome.reverted,
          change_set: outcome.changeSet ?? null,
          restored: outcome.restored,
          conflicts: outcome.conflicts.map((conflict) => ({
            path: conflict.path,
            reason: conflict.reason,
            ...(conflict.expected_sha256 !== undefined ? { expected_sha256: conflict.expected_sha256 } : {}),
            ...(conflict.current_sha256 !== undefined ? { current_sha256: conflict.current_sha256 } : {}),
          })),
          dry_run: outcome.dryRun,
          forced: body.force === true,
          ...(outcome.commands ? { commands: outcome.commands } : {}),
        },
        200,
      );
    },
  });

  return [changes, revert];
}
