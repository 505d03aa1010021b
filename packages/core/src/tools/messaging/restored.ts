import type { OmniMessage } from "@penguin/protocol";
import { MESSAGE_ID_PREFIX } from "./hub.js";

/**
 * The first free message number after a session's trace: one past the highest `msg_<n>` of its
 * `message_sent` / `message_delivered` events, its children's relayed ones included (they share
 * the session's numbering). 1 for a trace without messages.
 */
export function nextMessageNumber(records: readonly OmniMessage[]): number {
  let highest = 0;
  for (const record of records) {
    if (record.type !== "event_msg") continue;
    const payload = record.payload as { type: string; message_id?: unknown };
    if (payload.type !== "message_sent" && payload.type !== "message_delivered") continue;
    if (typeof payload.message_id !== "string" || !payload.message_id.startsWith(MESSAGE_ID_PREFIX)) continue;
    const n = Number(payload.message_id.slice(MESSAGE_ID_PREFIX.length));
    if (Number.isInteger(n) && n > highest) highest = n;
  }
  return highest + 1;
}
