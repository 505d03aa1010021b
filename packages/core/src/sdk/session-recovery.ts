import {
  type JournalAccess,
  type ResolveOutcome,
  resolveActivity,
  type UncertainStep,
  uncertainSteps,
} from "../tools/journal/index.js";

// The SDK's side of "Work that survives a crash": a program (the CLI, the server, the web UI
// behind it) lists a session's uncertain steps with Penguin's check and records the user's
// decision on one. `Session.uncertainSteps` and `Session.resolve` delegate here.

/** What `session.resolve` takes: the user's decision on an uncertain call and what they checked. */
export interface ResolveStepInput {
  toolCallId: string;
  decision: "retry" | "accept";
  /** What the user checked (required, not blank). */
  evidence: string;
  /** A child agent's session whose trace holds the call; absent: this session. */
  sessionId?: string;
}

export type { JournalAccess, ResolveOutcome, UncertainStep };

/**
 * The session's (or a child's) calls that started and have no result nor decision, each with
 * Penguin's own check of the files they were changing. Refused (`ok: false`) when a child's
 * session cannot be read.
 */
export async function listUncertainSteps(
  journal: JournalAccess,
  sessionId?: string,
): Promise<{ ok: true; steps: UncertainStep[] } | { ok: false; message: string }> {
  const steps = await uncertainSteps(journal, sessionId);
  return typeof steps === "string" ? { ok: false, message: steps } : { ok: true, steps };
}

/** Records the user's decision (`by: "user"`) after the same checks the agent's tool makes. */
export function resolveStep(journal: JournalAccess, input: ResolveStepInput): Promise<ResolveOutcome> {
  return resolveActivity(journal, {
    toolCallId: input.toolCallId,
    decision: input.decision,
    evidence: input.evidence,
    ...(input.sessionId !== undefined ? { sessionId: input.sessionId } : {}),
    by: "user",
  });
}
