import { z } from "zod";
import { relayedCallerOf } from "../../cluster/instance-calls.js";
import type { AuthState } from "../../http/context.js";
import { jsonError } from "../../http/errors.js";
import { type AnyRouteSpec, errorResponse } from "../../http/route.js";
import { sessionChannel } from "../../runtime/channels.js";
import type { SessionManager } from "../../runtime/session-manager.js";
import type { HubEvent } from "../../sse/event-hub.js";
import { defineSessionRoute, IdParams, type SessionRoutesOptions } from "./session-route.js";

/** Longest `after` taken: an event id is `<epoch>-<seq>`, a few dozen characters at most. */
const EVENT_ID_MAX_CHARS = 64;

const EventsQuerySchema = z.object({
  after: z
    .string()
    .min(1)
    .max(EVENT_ID_MAX_CHARS)
    .describe("The id of the last event the client has (its Last-Event-ID)"),
});

const BufferedEventSchema = z.object({
  id: z.string(),
  seq: z.number().int().nonnegative(),
  event: z.string().optional(),
  data: z.string(),
});

const EventsResponseSchema = z.object({
  events: z.array(BufferedEventSchema).describe("The stream's events after `after`, oldest first"),
});

/**
 * The session's buffered stream events after an event id, as JSON: how an instance a client
 * reconnected to fetches the events the client missed from the instance that runs the session
 * (it is routed there), and how any client catches up without opening a stream.
 */
export function sessionReplayRoutes(options: SessionRoutesOptions): AnyRouteSpec[] {
  const { manager, store, hub } = options;

  const events = defineSessionRoute(store, {
    method: "get",
    path: "/api/sessions/:id/events",
    summary:
      "The session stream's buffered events after ?after= (an event id), as the stream would replay them; answered by the instance that runs the session",
    tag: "streams",
    params: IdParams,
    query: EventsQuerySchema,
    actsOnRuntime: manager,
    responses: {
      200: { description: "The events after `after`", schema: EventsResponseSchema },
      410: errorResponse(
        "events_gone: the events after `after` are no longer buffered (or the id was never issued for this session); refetch the session's messages",
      ),
    },
    handle(c, { session, query }) {
      const replayed = hub.replay(sessionChannel(session.id), query.after);
      if (typeof replayed === "string") {
        return jsonError(
          c,
          410,
          "events_gone",
          `the events after ${query.after} cannot be replayed (${replayed})`,
        );
      }
      return c.json({ events: replayed.map(({ id, seq, event, data }) => ({ id, seq, event, data })) }, 200);
    },
  });

  return [events];
}

/**
 * The events after `lastEventId` from the instance that runs the session, when another one does
 * and answers; undefined otherwise (the client then resyncs).
 */
export async function fetchGapFromOwner(
  manager: SessionManager,
  sessionId: string,
  auth: AuthState,
  lastEventId: string,
  base: string,
): Promise<HubEvent[] | undefined> {
  const owner = await manager.ownerElsewhere(sessionId);
  if (!owner || !manager.forwardCall) return undefined;
  const url = new URL(`/api/sessions/${sessionId}/events`, base);
  url.searchParams.set("after", lastEventId);
  const request = new Request(url, { headers: { accept: "application/json" } });
  const response = await manager.forwardCall(owner, request, relayedCallerOf(auth), undefined);
  if (response?.status !== 200) return undefined;
  const parsed = EventsResponseSchema.safeParse(await response.json().catch(() => undefined));
  return parsed.success ? parsed.data.events : undefined;
}
