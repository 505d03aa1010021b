import type { EventHub } from "../sse/event-hub.js";
import { SERVER_EVENT } from "../sse/event-hub.js";

/** The hub channel of one session's live stream. */
export const sessionChannel = (sessionId: string) => `session:${sessionId}`;
/** The hub channel of one user's `/api/events` stream. */
export const userChannel = (userId: string) => `user:${userId}`;

/** Publishes a named `server_event` whose data is `{type, ...fields}`. */
export function publishServerEvent(
  hub: EventHub,
  channelId: string,
  type: string,
  fields: Record<string, unknown>,
): void {
  hub.publish(channelId, { event: SERVER_EVENT, data: JSON.stringify({ type, ...fields }) });
}

/** `{event: "server_event", data}` for a snapshot that is written without an id. */
export function serverEvent(type: string, fields: Record<string, unknown>) {
  return { event: SERVER_EVENT, data: JSON.stringify({ type, ...fields }) };
}
