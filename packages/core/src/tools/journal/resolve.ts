import type { ActivityResolvedPayload } from "@penguin/protocol";
import type { JournalEntry } from "@penguin/trace";
import { gatherEvidence, type StepEvidence } from "./evidence.js";

// A decision on an uncertain call, by the agent (resolve_execution_activity) or the user
// (session.resolve): the same checks and the same record for both. The decision is recorded with
// what Penguin verified itself (gatherEvidence) next to what the decider says it checked.

/** One session's journal as the resolver sees it. */
export interface JournalView {
  entries: JournalEntry[];
  /** Whether the call was started by this process (it is running, or just ran): never uncertain. */
  startedHere(toolCallId: string): boolean;
  /** Describes a command session or job of this session (its process registry); absent: "unknown". */
  describeProcess?: (id: string) => string | undefined;
}

/** Where the resolver reads journals and records decisions (the SDK reads and writes traces). */
export interface JournalAccess {
  /**
   * The journal of this session (`sessionId` undefined) or of one of its child agents' sessions;
   * a string says why it cannot be read.
   */
  journal(sessionId?: string): JournalView | string;
  /** Appends the decision to the trace that holds the call (a child's decision also to this one's). */
  record(resolution: ResolutionFields): void;
}

/** An `activity_resolved` event's fields. */
export interface ResolutionFields {
  tool_call_id: string;
  session_id?: string;
  decision: ActivityResolvedPayload["decision"];
  evidence: string;
  by: ActivityResolvedPayload["by"];
  verified?: string;
}

export interface ResolveRequest {
  toolCallId: string;
  decision: string;
  evidence: string;
  /** A child agent's session whose trace holds the call; absent: this session. */
  sessionId?: string;
  by: "agent" | "user";
}

export type ResolveOutcome =
  | { ok: true; entry: JournalEntry; resolution: ResolutionFields; check: StepEvidence }
  | { ok: false; message: string };

/** An uncertain call with what Penguin found when it checked the workspace. */
export interface UncertainStep {
  entry: JournalEntry;
  check: StepEvidence;
  /** The session whose trace holds it (absent: this session). */
  sessionId?: string;
}

const isDecision = (value: string): value is ResolutionFields["decision"] =>
  value === "retry" || value === "accept";

/** Whether a call may take a decision: it started, has no result, only it knows whether it acted. */
function openCall(entry: JournalEntry, view: JournalView): boolean {
  return entry.state === "dispatched" && !entry.readOnly && !view.startedHere(entry.toolCallId);
}

/** The calls of a session that are uncertain now (not resolved), each with Penguin's check. */
export async function uncertainSteps(
  access: JournalAccess,
  sessionId?: string,
): Promise<UncertainStep[] | string> {
  const view = access.journal(sessionId);
  if (typeof view === "string") return view;
  const open = view.entries.filter((entry) => openCall(entry, view) && entry.resolution === undefined);
  return Promise.all(
    open.map(async (entry) => ({
      entry,
      check: await gatherEvidence(entry, view),
      ...(sessionId !== undefined ? { sessionId } : {}),
    })),
  );
}

/** Checks the request, gathers Penguin's own evidence and records the decision. */
export async function resolveActivity(
  access: JournalAccess,
  request: ResolveRequest,
): Promise<ResolveOutcome> {
  const evidence = request.evidence.trim();
  if (evidence === "")
    return refuse("evidence is empty: say what you checked (the files, the command's output).");
  if (!isDecision(request.decision)) {
    return refuse(`decision must be retry or accept; got "${request.decision}".`);
  }
  const view = access.journal(request.sessionId);
  if (typeof view === "string") return refuse(view);
  const where = request.sessionId === undefined ? "this session" : `session ${request.sessionId}`;
  const entry = view.entries.find((candidate) => candidate.toolCallId === request.toolCallId);
  if (!entry) {
    const open = view.entries.filter(
      (candidate) => openCall(candidate, view) && candidate.resolution === undefined,
    );
    const list =
      open.length === 0
        ? `${where} has no uncertain steps.`
        : `The uncertain steps of ${where}: ${open.map((c) => `${c.toolCallId} (${c.name})`).join(", ")}.`;
    return refuse(`No tool call ${request.toolCallId} in ${where}. ${list}`);
  }
  const why = notUncertainBecause(entry, view);
  if (why)
    return refuse(`${entry.toolCallId} (${entry.name}) is not uncertain: ${why} Nothing was recorded.`);

  const check = await gatherEvidence(entry, view);
  const resolution: ResolutionFields = {
    tool_call_id: entry.toolCallId,
    ...(request.sessionId !== undefined ? { session_id: request.sessionId } : {}),
    decision: request.decision,
    evidence,
    by: request.by,
    verified: check.summary,
  };
  try {
    access.record(resolution);
  } catch (error) {
    return refuse(
      `the decision could not be recorded: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return { ok: true, entry, resolution, check };
}

function notUncertainBecause(entry: JournalEntry, view: JournalView): string | undefined {
  switch (entry.state) {
    case "finished":
      return "it finished and has its result.";
    case "denied":
      return "it was refused, so it never ran.";
    case "approved":
    case "requested":
      return "it never started, so it did not run.";
    case "dispatched":
      if (entry.readOnly)
        return "it only reads, so it changed nothing; call it again if you need its result.";
      if (view.startedHere(entry.toolCallId))
        return "it was started in this run of the session, after it was opened.";
      return undefined;
  }
}

function refuse(message: string): ResolveOutcome {
  return { ok: false, message };
}
