import { join } from "node:path";
import { activityResolved, type OmniMessage } from "@penguin/protocol";
import {
  isValidSessionId,
  readSession,
  TraceError,
  type TraceLocation,
  TraceWriter,
  toolJournal,
} from "@penguin/trace";
import {
  processDescriber,
  processesLeftRunning,
  type RetainedProcess,
  retainedProcesses,
} from "../processes/retained-processes.js";
import type { JournalAccess, JournalView, ResolutionFields } from "../tools/journal/index.js";

// A session's journal as resolve_execution_activity and session.resolve see it: read from the
// traces each time (a decision taken elsewhere counts at once), decisions appended to the trace
// that holds the call. A call this process started is never uncertain: only the calls the trace
// already held when the session was opened can be. Likewise, the commands and jobs a crash left
// are the ones the process registry had as running when the session was opened (a session that
// ends cleanly ends its own), read before the resumed session's process manager restores them.

export interface SessionJournalInput {
  location: TraceLocation;
  sessionId: string;
  trace: TraceWriter;
  /** A resumed session's records when it was opened (absent: a new session). */
  records?: readonly OmniMessage[];
}

export class SessionJournal implements JournalAccess {
  private readonly knownAtOpen: ReadonlySet<string>;
  private readonly runningAtOpen: ReadonlySet<string>;

  constructor(private readonly input: SessionJournalInput) {
    this.knownAtOpen = new Set(toolJournal(input.records ?? []).map((entry) => entry.toolCallId));
    const leftRunning =
      input.records === undefined ? [] : processesLeftRunning(this.scratchpadOf(input.sessionId));
    this.runningAtOpen = new Set(leftRunning.map((process) => process.id));
  }

  /** The commands and jobs that were running when the session was opened, as the registry has them now. */
  leftByCrash(): RetainedProcess[] {
    if (this.runningAtOpen.size === 0) return [];
    return retainedProcesses(this.scratchpadOf(this.input.sessionId)).filter((process) =>
      this.runningAtOpen.has(process.id),
    );
  }

  journal(sessionId?: string): JournalView | string {
    const own = sessionId === undefined || sessionId === this.input.sessionId;
    if (own) {
      const { records } = readSession(this.input.location, this.input.sessionId);
      return {
        entries: toolJournal(records),
        startedHere: (id) => !this.knownAtOpen.has(id),
        describeProcess: this.processesOf(this.input.sessionId),
      };
    }
    const records = this.childRecords(sessionId);
    if (typeof records === "string") return records;
    return {
      entries: toolJournal(records),
      startedHere: () => false,
      describeProcess: this.processesOf(sessionId),
    };
  }

  record(resolution: ResolutionFields): void {
    const child = resolution.session_id;
    const message = activityResolved(resolution);
    if (child === undefined || child === this.input.sessionId) {
      this.input.trace.append(message);
      return;
    }
    // The child's trace holds the call, so its journal (and every reader of it) sees the decision.
    const writer = TraceWriter.open(this.input.location, child);
    try {
      writer.append(message);
    } finally {
      writer.close();
    }
  }

  /**
   * A session's command sessions and jobs, as its process registry in the scratchpad tells them:
   * read on the first lookup and once for all the calls of one journal view.
   */
  private processesOf(sessionId: string): (id: string) => string | undefined {
    const scratchpad = this.scratchpadOf(sessionId);
    let describe: ((id: string) => string | undefined) | undefined;
    return (id) => {
      describe ??= processDescriber(retainedProcesses(scratchpad));
      return describe(id);
    };
  }

  private scratchpadOf(sessionId: string): string {
    return join(this.input.location.scratchpadRoot, sessionId);
  }

  /** The records of a child agent's session of this one, or why they cannot be read. */
  private childRecords(sessionId: string): readonly OmniMessage[] | string {
    if (!isValidSessionId(sessionId)) return `"${sessionId}" is not a session id.`;
    let records: OmniMessage[];
    try {
      records = readSession(this.input.location, sessionId).records;
    } catch (error) {
      if (error instanceof TraceError && error.code === "session_not_found")
        return `No session ${sessionId}.`;
      throw error;
    }
    const meta = records[0];
    const parent = meta?.type === "session_meta" ? meta.payload.parent_session_id : undefined;
    if (parent !== this.input.sessionId) return `Session ${sessionId} is not a child agent of this session.`;
    return records;
  }
}
