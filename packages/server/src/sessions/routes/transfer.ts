import { newSessionId } from "@penguin/core";
import {
  deleteSession,
  exportSessionText,
  importSessionText,
  readSession,
  TraceError,
  type TraceLocation,
} from "@penguin/trace";
import { z } from "zod";
import { jsonError } from "../../http/errors.js";
import { SafeIdSchema } from "../../http/ids.js";
import { type AnyRouteSpec, defineRoute, errorResponse } from "../../http/route.js";
import { MAX_IMPORT_BODY_BYTES, MAX_TITLE_CHARS } from "../../limits.js";
import { publishServerEvent, userChannel } from "../../runtime/channels.js";
import { SessionSchema } from "../schemas.js";
import { titleFromRecords } from "../title.js";
import { checkWorkspace } from "../workspace.js";
import { defineSessionRoute, IdParams, type SessionRoutesOptions } from "./session-route.js";

const ImportRequestSchema = z.strictObject({
  trace: z
    .string()
    .min(1)
    .describe(
      "The export's text: the JSONL file `GET /api/sessions/{id}/export` or `penguin sessions export` wrote",
    ),
  title: z
    .string()
    .max(MAX_TITLE_CHARS)
    .regex(/^[^\r\n]*$/, "a title is one line")
    .optional()
    .describe("Default: the first line of the trace's first user message"),
});

const ImportResponseSchema = z.object({
  session: SessionSchema,
  original_id: z
    .string()
    .describe(
      "The session id the export carried; the session got a new id (session.id) when that one was taken on this server",
    ),
});

/** Exporting a session's trace as a download, and importing an export as a new session of the caller. */
export function sessionTransferRoutes(options: SessionRoutesOptions): AnyRouteSpec[] {
  const { manager, store, hub } = options;

  const exportTrace = defineSessionRoute(options, {
    method: "get",
    path: "/api/sessions/:id/export",
    summary:
      "The session's trace as one JSONL file (what `penguin sessions export` writes), as a download; torn lines are left out",
    tag: "sessions",
    params: IdParams,
    responses: {
      200: { description: "application/x-ndjson: the export, one record a line" },
    },
    handle(c, { session }) {
      let text: string;
      try {
        ({ text } = exportSessionText(manager.location, session.id));
      } catch (error) {
        if (error instanceof TraceError && error.code === "session_not_found")
          return jsonError(c, 404, "not_found", "the session's trace is gone");
        throw error;
      }
      return c.body(text, 200, {
        "content-type": "application/x-ndjson; charset=utf-8",
        "content-disposition": `attachment; filename="${session.id}.jsonl"`,
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
      });
    },
  });

  const importTrace = defineRoute({
    method: "post",
    path: "/api/sessions/import",
    summary:
      "Import a session export as a new session of the caller; an id already taken on this server is replaced by a new one",
    tag: "sessions",
    access: "user",
    body: ImportRequestSchema,
    maxBodyBytes: MAX_IMPORT_BODY_BYTES,
    responses: {
      201: { description: "Imported", schema: ImportResponseSchema },
      400: errorResponse(
        "invalid_import: a line is not a valid record, or the text is not one session's export (the message names the line). invalid_workspace: the trace's workspace is outside this server's workspace roots or gone",
      ),
    },
    async handle(c, { body, auth }) {
      const location = manager.location;
      let id: string;
      try {
        id = importSessionText(location, body.trace, "upload");
        // A row without a trace (removed by hand) still owns the id.
        if (await store.find(id)) {
          deleteSession(location, id);
          id = importUnderNewId(location, body.trace);
        }
      } catch (error) {
        if (!(error instanceof TraceError)) throw error;
        if (error.code !== "session_exists") return jsonError(c, 400, "invalid_import", error.message);
        id = importUnderNewId(location, body.trace);
      }
      const records = readSession(location, id).records;
      const meta = records[0];
      if (meta?.type !== "session_meta") {
        deleteSession(location, id);
        return jsonError(c, 400, "invalid_import", "the export does not start with a session_meta record");
      }
      const agentId = meta.payload.agent_id ?? "default";
      if (!SafeIdSchema.safeParse(agentId).success) {
        deleteSession(location, id);
        return jsonError(
          c,
          400,
          "invalid_import",
          `the export names an invalid agent id ${JSON.stringify(agentId)}`,
        );
      }
      const workspace = await checkWorkspace(meta.payload.workspace, options.workspaceRoots);
      if (!workspace.ok) {
        deleteSession(location, id);
        return jsonError(c, 400, "invalid_workspace", workspace.message);
      }
      const row = await store.insert({
        id,
        user_id: auth.user.id,
        title: body.title ?? titleFromRecords(records),
        agent_id: agentId,
        workspace: workspace.path,
        provider: meta.payload.provider,
        model_id: meta.payload.model_id,
        execution_profile: meta.payload.execution_profile ?? "native",
        // Someone else's trace may have been made under looser rules: every call asks until the
        // owner picks a mode.
        approval_mode: "always-ask",
      });
      await manager.traceImported(id);
      publishServerEvent(hub, userChannel(row.user_id), "session_created", { session: row });
      return c.json({ session: row, original_id: exportedId(body.trace) ?? id }, 201);
    },
  });

  return [importTrace, exportTrace];
}

/** The session id the export's first record carries (the import has validated the text). */
function exportedId(text: string): string | undefined {
  const first = text.split("\n").find((line) => line.trim() !== "");
  if (first === undefined) return undefined;
  const payload = (JSON.parse(first) as { payload?: { session_id?: unknown } }).payload;
  return typeof payload?.session_id === "string" ? payload.session_id : undefined;
}

/** Imports under a fresh session id (the export's own is taken on this server). */
function importUnderNewId(location: TraceLocation, text: string): string {
  for (;;) {
    const fresh = newSessionId();
    try {
      return importSessionText(location, text, "upload", { newSessionId: fresh });
    } catch (error) {
      // Taken between the look and the write: try another.
      if (error instanceof TraceError && error.code === "session_exists") continue;
      throw error;
    }
  }
}
