import { useEffect } from "react";

/** The caller's live events that change what the session list shows. */
const LIST_EVENTS = new Set(["session_created", "session_updated", "session_state", "session_deleted"]);

/** Calls of `onChange` this close together become one (a task's start brings several events). */
const SETTLE_MS = 150;

/**
 * Follows the caller's `/api/events` stream while mounted and calls `onChange` when a session is
 * created, renamed, deleted, or starts or ends a task (in this tab, another one or another
 * client). The browser's EventSource reconnects by itself after a drop.
 */
export function useSessionEvents(onChange: () => void): void {
  useEffect(() => {
    const source = new EventSource("/api/events");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onEvent = (event: MessageEvent<string>) => {
      let type: unknown;
      try {
        type = (JSON.parse(event.data) as { type?: unknown }).type;
      } catch {
        return;
      }
      if (typeof type !== "string" || !LIST_EVENTS.has(type)) return;
      clearTimeout(timer);
      timer = setTimeout(onChange, SETTLE_MS);
    };
    source.addEventListener("server_event", onEvent);
    return () => {
      clearTimeout(timer);
      source.removeEventListener("server_event", onEvent);
      source.close();
    };
  }, [onChange]);
}
