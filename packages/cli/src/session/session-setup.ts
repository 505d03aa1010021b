import type { Session } from "@penguin/core";
import type { OmniMessage, SessionMetaPayload } from "@penguin/protocol";
import { readTraceFile } from "@penguin/trace";

/** What a session was set up with: the model (as a `--model` reference) and the workspace. */
export interface SessionSetup {
  modelRef: string;
  workspaceDir: string;
}

/** A session_meta's model as the reference `--model` takes (`replay:FILE` for a cassette). */
export function modelRefOf(meta: Pick<SessionMetaPayload, "provider" | "model_id">): string {
  return meta.provider === "replay" ? `replay:${meta.model_id}` : `${meta.provider}/${meta.model_id}`;
}

/** An open session's latest session_meta record (every trace file starts with one). */
export function latestSessionMeta(session: Session): OmniMessage<SessionMetaPayload> {
  let meta: OmniMessage<SessionMetaPayload> | undefined;
  for (const record of readTraceFile(session.tracePath).records) {
    if (record.type === "session_meta") meta = record as OmniMessage<SessionMetaPayload>;
  }
  if (!meta) throw new Error(`the trace ${session.tracePath} has no session_meta`);
  return meta;
}

/**
 * The model and workspace of an open session, from its latest session_meta: a resumed
 * session's own, not the flags the command was started with.
 */
export function sessionSetup(session: Session): SessionSetup {
  return { modelRef: modelRefOf(latestSessionMeta(session).payload), workspaceDir: session.workspaceDir };
}
