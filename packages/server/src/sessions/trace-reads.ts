import type { OmniMessage } from "@penguin/protocol";
import { readSession, type SessionContents, TraceError, type TraceLocation } from "@penguin/trace";

/** A session's trace: its records as written and the lines that could not be read. */
export type TraceReading = Pick<SessionContents, "records" | "diagnostics">;

/** A session's trace as written; a session whose trace is gone reads as empty. */
export function readTrace(location: TraceLocation, sessionId: string): TraceReading {
  try {
    return readSession(location, sessionId);
  } catch (error) {
    // A session whose trace is gone (removed by hand) has no history, but it is still listed.
    if (error instanceof TraceError && error.code === "session_not_found")
      return { records: [], diagnostics: [] };
    throw error;
  }
}

/** The records of a session's trace (see `readTrace`). */
export function traceRecords(location: TraceLocation, sessionId: string): OmniMessage[] {
  return readTrace(location, sessionId).records;
}
