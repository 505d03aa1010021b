import { scratchpadDir, scratchpadRoot, tracesDir } from "@penguin/state";
import { type TraceLocation, TraceWriter } from "@penguin/trace";
import { holdSession } from "../processes/session-holder.js";

// A top-level session's trace, held by this process while it is open (processes/session-holder.ts):
// a second process that opens the same session is refused instead of interleaving records. A
// subagent's trace is held through its root's (only the root's process runs it).

export interface SessionTraceMode {
  /** A new session (its trace is created) or a resumed one (its trace is appended to). */
  mode: "create" | "open";
  /** A top-level session: held while open. */
  topLevel: boolean;
}

/** Where the traces and scratchpads of the sessions under `dataRoot` are. */
export function traceLocation(dataRoot: string): TraceLocation {
  return { tracesDir: tracesDir(dataRoot), scratchpadRoot: scratchpadRoot(dataRoot) };
}

export function sessionTrace(dataRoot: string, sessionId: string, how: SessionTraceMode): TraceWriter {
  const location = traceLocation(dataRoot);
  const release = how.topLevel ? holdSession(scratchpadDir(dataRoot, sessionId), sessionId) : () => {};
  try {
    return how.mode === "create"
      ? TraceWriter.create(location, sessionId, { onClose: release })
      : TraceWriter.open(location, sessionId, { onClose: release });
  } catch (error) {
    release();
    throw error;
  }
}
