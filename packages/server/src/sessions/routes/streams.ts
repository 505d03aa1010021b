import { streamCredentialOf } from "../../auth/stream-credentials.js";
import type { AppContext, AuthState } from "../../http/context.js";
import { jsonError } from "../../http/errors.js";
import { type AnyRouteSpec, defineRoute, errorResponse } from "../../http/route.js";
import { sessionChannel, userChannel } from "../../runtime/channels.js";
import { streamChannel } from "../../sse/stream-channel.js";
import type { StreamLease } from "../../sse/stream-registry.js";
import { fetchGapFromOwner, liveStateFromOwner, liveStateHere } from "./catch-up.js";
import { defineSessionRoute, IdParams, type SessionRoutesOptions } from "./session-route.js";

const TOO_MANY_STREAMS = errorResponse(
  "too_many_streams: the user already has the most live streams allowed (maxStreamsPerUser) open",
);

/** The live streams (SSE): one session's, and the caller's own events. */
export function sessionStreamRoutes(options: SessionRoutesOptions): AnyRouteSpec[] {
  const { manager, hub, streams } = options;

  /** A lease for one more stream of the caller, or the 429 that refuses it. */
  function openLease(c: AppContext, auth: AuthState): StreamLease | Response {
    const lease = streams.open(streamCredentialOf(auth));
    if (lease) return lease;
    return jsonError(
      c,
      429,
      "too_many_streams",
      `this user already has ${streams.maxPerUser} live streams open (other tabs or clients); close one and retry`,
    );
  }

  const stream = defineSessionRoute(options, {
    method: "get",
    path: "/api/sessions/:id/stream",
    summary:
      "Live stream (SSE): unnamed events carry envelopes; server_event: approval_request, task_state, session_updated, resync_required",
    tag: "streams",
    params: IdParams,
    responses: { 200: { description: "text/event-stream" }, 429: TOO_MANY_STREAMS },
    handle(c, { session, auth }) {
      const lease = openLease(c, auth);
      if (lease instanceof Response) return lease;
      return streamChannel(c, hub, sessionChannel(session.id), {
        lease,
        // A client back from another instance: the events it missed come from the session's owner.
        fetchGap: (lastEventId) => fetchGapFromOwner(manager, session.id, auth, lastEventId, c.req.url),
        // Without a runtime here, the owner's live state, when another instance runs the session
        // (its events reach this stream through the relay).
        snapshot: () =>
          manager.runtime(session.id)
            ? liveStateHere(manager, session)
            : liveStateFromOwner(manager, session, auth, c.req.url),
      });
    },
  });

  const events = defineRoute({
    method: "get",
    path: "/api/events",
    summary:
      "The caller's live events (SSE server_event): session_created, session_updated, session_state, session_deleted",
    tag: "streams",
    access: "user",
    responses: { 200: { description: "text/event-stream" }, 429: TOO_MANY_STREAMS },
    handle(c, { auth }) {
      const lease = openLease(c, auth);
      if (lease instanceof Response) return lease;
      return streamChannel(c, hub, userChannel(auth.user.id), { lease });
    },
  });

  return [stream, events];
}
