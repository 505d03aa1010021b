import { emptyTokenCounts, userText } from "@penguin/protocol";
import type { ResumeState } from "@penguin/trace";
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
