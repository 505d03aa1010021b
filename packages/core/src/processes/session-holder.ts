import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { checkIdentity, currentBootId, identityOf, type ProcessIdentity } from "./process-identity.js";

// One process at a time appends to a session's trace. A process that opens a top-level session
// (to run it, or to revert its changes offline) leaves a holder file in the session's scratchpad
// naming itself; another process that finds it, with that process still running, is refused with
// a message naming the holder, instead of interleaving records the holder does not know of (a
// `penguin undo` while `penguin chat` runs the session, or a second resume of it). A holder that
// ended (a crash) or whose pid now names another program is stale and taken over.

/** The holder file, in the session's scratchpad. */
export const HOLDER_FILE = "holder.json";

/** Who holds a session: its process, and since when. */
export interface SessionHolderInfo extends ProcessIdentity {
  /** ISO time the holder took it. */
  since: string;
}

export class SessionHeldError extends Error {
  constructor(
    readonly sessionId: string,
    readonly holder: SessionHolderInfo,
  ) {
    super(
      `session ${sessionId} is open in another process (pid ${holder.pid}, since ${holder.since}): end it there first, or act on the session through that process`,
    );
    this.name = "SessionHeldError";
  }
}

/** This process's holds, by file: a session opened twice in one process is held until both let go. */
const holds = new Map<string, number>();

/**
 * Holds session `sessionId` (whose scratchpad is `scratchpadDir`) for this process; throws
 * `SessionHeldError` when a running process holds it. Returns the release (call it once).
 * Where processes cannot be told apart (no /proc), it holds nothing and refuses nothing.
 */
export function holdSession(scratchpadDir: string, sessionId: string): () => void {
  const file = join(scratchpadDir, HOLDER_FILE);
  const own = identityOf(process.pid);
  if (!own) return () => {};
  const count = holds.get(file) ?? 0;
  if (count === 0) claim(file, sessionId, own);
  holds.set(file, count + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (holds.get(file) ?? 1) - 1;
    if (left > 0) {
      holds.set(file, left);
      return;
    }
    holds.delete(file);
    // Only this process's own file is removed (a successor may have taken over a stale hold).
    if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true });
  };
}

/** The running process other than this one that holds the session, if any. */
export function sessionHolder(scratchpadDir: string): SessionHolderInfo | undefined {
  const holder = readHolder(join(scratchpadDir, HOLDER_FILE));
  if (!holder || holder.pid === process.pid) return undefined;
  return checkIdentity(holder, currentBootId()) === "running" ? holder : undefined;
}

function claim(file: string, sessionId: string, own: ProcessIdentity): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const info: SessionHolderInfo = { ...own, since: new Date().toISOString() };
  // Written whole to a file of this process, then linked into place: the link fails when a
  // holder exists, and a holder is never seen half written.
  const mine = `${file}.${process.pid}`;
  writeFileSync(mine, JSON.stringify(info), { mode: 0o600 });
  try {
    // Two attempts: the second after removing a stale holder (or one a crash left unreadable).
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        linkSync(mine, file);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const holder = readHolder(file);
      if (holder && holder.pid !== process.pid && checkIdentity(holder, own.bootId) === "running")
        throw new SessionHeldError(sessionId, holder);
      rmSync(file, { force: true });
    }
    throw new Error(`could not take ${file}: another process took it at the same moment`);
  } finally {
    rmSync(mine, { force: true });
  }
}

function readHolder(file: string): SessionHolderInfo | undefined {
  try {
    const value = JSON.parse(readFileSync(file, "utf8")) as Partial<SessionHolderInfo>;
    if (
      typeof value.pid !== "number" ||
      typeof value.startTicks !== "string" ||
      typeof value.bootId !== "string"
    )
      return undefined;
    return { pid: value.pid, startTicks: value.startTicks, bootId: value.bootId, since: String(value.since) };
  } catch {
    return undefined;
  }
}
