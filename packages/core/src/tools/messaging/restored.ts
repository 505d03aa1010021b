import type { OmniMessage } from "@penguin/protocol";
import { QUESTION_ID_PREFIX } from "@penguin/state";
import { type IdNumbers, MESSAGE_ID_PREFIX } from "./hub.js";

/** The events whose ids a session's numbering must pass (a question's id is in `question_id`). */
const MESSAGE_EVENTS = new Set(["message_sent", "message_delivered"]);
const QUESTION_EVENTS = new Set(["question_asked", "question_answered", "message_delivered"]);

/** The number of `id` when it has `prefix` (`msg_7` → 7), else 0. */
function numberOf(id: unknown, prefix: string): number {
  if (typeof id !== "string" || !id.startsWith(prefix)) return 0;
  const n = Number(id.slice(prefix.length));
  return Number.isInteger(n) && n > 0 ? n : 0;
}

/**
 * The first free message and question numbers after a session's trace: one past the highest
 * `msg_<n>` of its `message_sent` / `message_delivered` events and the highest `q_<n>` of its
 * question events, its children's relayed ones included (they share the session's numbering).
 * 1 each for a trace without them.
 */
export function nextIdNumbers(records: readonly OmniMessage[]): IdNumbers {
  let message = 0;
  let question = 0;
  for (const record of records) {
    if (record.type !== "event_msg") continue;
    const payload = record.payload as { type: string; message_id?: unknown; question_id?: unknown };
    if (MESSAGE_EVENTS.has(payload.type))
      message = Math.max(message, numberOf(payload.message_id, MESSAGE_ID_PREFIX));
    if (QUESTION_EVENTS.has(payload.type))
      question = Math.max(question, numberOf(payload.question_id, QUESTION_ID_PREFIX));
  }
  return { message: message + 1, question: question + 1 };
}

/** The first free message number after a session's trace (see `nextIdNumbers`). */
export function nextMessageNumber(records: readonly OmniMessage[]): number {
  return nextIdNumbers(records).message;
}
