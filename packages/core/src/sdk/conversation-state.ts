import { emptyTokenCounts, eventMsg, type OmniMessage, userText } from "@penguin/protocol";
import type { ResumeState, TraceWriter } from "@penguin/trace";
import { flattenTurn, turnAbortedText } from "../engine/markers.js";
import type { ConversationState } from "../engine/types.js";

/** The conversation of a new session: nothing said, nothing spent. */
export function freshState(): ConversationState {
  return { messages: [], sessionTokens: emptyTokenCounts(), turns: 0, activeMs: 0, pendingNotes: [] };
}

/**
 * The conversation of a resumed session, as its trace left it: the committed context, token
 * totals and turns, and a note for the model when a request was dropped without one.
 */
export function resumedState(resume: ResumeState): ConversationState {
  const state: ConversationState = {
    messages: resume.messages,
    sessionTokens: resume.tokens.session ?? emptyTokenCounts(),
    sessionCostUsd: resume.tokens.sessionCostUsd,
    turns: resume.turns,
    activeMs: 0,
    pendingNotes: [],
    contextTurns: resume.contextTurns,
    plan: resume.plan,
    // The last usage before a compaction is the old context's: it does not count for the new one.
    ...(resume.contextTurns > 0 && resume.tokens.lastRequest
      ? { lastRequestTotal: resume.tokens.lastRequest.total }
      : {}),
  };
  const carry = resume.carryOver;
  // A crash after the engine's own note (a retry that then ran tools, say) still needs one:
  // only a note recorded after the last request began hands that request back.
  if (carry.interruption === "request" && !carry.handedBack) {
    const notice = carry.notice ?? "The previous turn did not finish.";
    const note = turnAbortedText(notice, flattenTurn(carry.droppedMessages));
    state.pendingNotes.push(userText(note, { sender: "harness" }));
  }
  return state;
}

/** Why a compaction found open on resume failed: the process stopped in the middle of it. */
export const DANGLING_COMPACTION_MESSAGE =
  "the session stopped during this compaction; the context from before it is kept";

/**
 * "A dangling compaction_begin found on resume is closed as failed": the trace gets the
 * `compaction_end` the compaction never wrote, and the session goes on with the context from
 * before it (which `rebuildContext` already returned). Returns the records it appended.
 */
export function closeOpenCompaction(trace: TraceWriter, resume: ResumeState): OmniMessage[] {
  if (!resume.danglingCompaction) return [];
  const { reason, mode } = resume.openCompaction ?? { reason: "manual" as const, mode: "summarize" as const };
  const end = eventMsg({
    type: "compaction_end",
    reason,
    mode,
    status: "failed",
    error_message: DANGLING_COMPACTION_MESSAGE,
  });
  trace.append(end);
  return [end];
}
