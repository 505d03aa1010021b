import type { Session } from "@penguin/core";
import type { SessionMetaPayload } from "@penguin/protocol";

/** What a session was set up with: the model (as a `--model` reference) and the workspace. */
export interface SessionSetup {
  modelRef: string;
  workspaceDir: string;
  /** The execution profile its session_meta records (absent in traces from before profiles). */
  executionProfile: string | undefined;
}

/** A session_meta's model as the reference `--model` takes (`replay:FILE` for a cassette). */
export function modelRefOf(meta: Pick<SessionMetaPayload, "provider" | "model_id">): string {
  return meta.provider === "replay" ? `replay:${meta.model_id}` : `${meta.provider}/${meta.model_id}`;
}

/**
 * The model and workspace of an open session, from its session_meta: a resumed session's own,
 * not the flags the command was started with.
 */
export function sessionSetup(session: Session): SessionSetup {
  return {
    modelRef: modelRefOf(session.meta.payload),
    workspaceDir: session.workspaceDir,
    executionProfile: session.meta.payload.execution_profile,
  };
}
