import {
  findSessionFiles,
  isValidSessionId,
  listSessions,
  TraceError,
  type TraceLocation,
} from "@penguin/trace";
import { EXIT_TASK_FAILED, EXIT_USAGE, UsageError } from "./exit-codes.js";

/** How many existing ids an "unknown session" message names before pointing at `sessions list`. */
export const KNOWN_IDS_SHOWN = 5;

/** Throws a one-line usage error for an id that is not one path segment (`../x`, `a/b`, `.x`). */
export function checkSessionId(id: string): void {
  if (!isValidSessionId(id)) {
    throw new UsageError(
      `invalid session id ${JSON.stringify(id)}: ids are 1-128 letters, digits, '-' or '_', starting with a letter or digit`,
    );
  }
}

/** "Unknown session id: say which ids exist or how to list them." */
export function unknownSessionError(loc: TraceLocation, id: string): UsageError {
  const ids = listSessions(loc).map((s) => s.sessionId);
  if (ids.length === 0)
    return new UsageError(`no session "${id}": there are no sessions under ${loc.tracesDir}`);
  const shown = ids.slice(0, KNOWN_IDS_SHOWN).join(", ");
  const more = ids.length > KNOWN_IDS_SHOWN ? `, … (${ids.length} in all)` : "";
  return new UsageError(
    `no session "${id}": the newest are ${shown}${more}; \`penguin sessions list\` shows them all`,
  );
}

/** The trace files of an existing session; a usage error names the problem otherwise. */
export function requireSession(loc: TraceLocation, id: string): string[] {
  checkSessionId(id);
  const files = findSessionFiles(loc, id);
  if (files.length === 0) throw unknownSessionError(loc, id);
  return files;
}

/**
 * An error from `@penguin/trace` or the file system as the CLI reports it: the user's mistakes (a
 * bad id, an unknown session, an existing one, an invalid import file) exit 2; a failed read or
 * write (permissions, disk full) is one line naming what could not be done, exit 1. Anything else
 * is a bug and passes through with its stack.
 */
export function toCliError(err: unknown, action: string): unknown {
  if (err instanceof UsageError) return err;
  if (err instanceof TraceError) {
    const usage: readonly string[] = [
      "invalid_session_id",
      "session_not_found",
      "session_exists",
      "invalid_import",
    ];
    return new UsageError(err.message, usage.includes(err.code) ? EXIT_USAGE : EXIT_TASK_FAILED);
  }
  const e = err as NodeJS.ErrnoException;
  if (typeof e?.code === "string" && typeof e.syscall === "string") {
    const detail = e.code === "ENOENT" ? "no such file or folder" : e.message;
    return new UsageError(`cannot ${action}: ${detail}`, EXIT_TASK_FAILED);
  }
  return err;
}
