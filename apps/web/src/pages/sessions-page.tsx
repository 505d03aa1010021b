import { type ChangeEvent, useCallback, useEffect, useId, useState } from "react";
import { api } from "../api/client.js";
import type { SessionListItem } from "../api/types.js";
import { CreateSessionForm } from "../components/create-session-form.js";
import { ErrorText } from "../components/error-text.js";
import { SessionTable } from "../components/session-table.js";
import "../components/sessions-page.css";
import { matchesSearch } from "../sessions/session-filter.js";
import { useSessionEvents } from "../sessions/use-session-events.js";

/** The caller's sessions, last active first and kept current, with search and import; and the form that creates one. */
export function SessionsPage() {
  const [sessions, setSessions] = useState<SessionListItem[]>();
  const [failure, setFailure] = useState<unknown>();
  const [query, setQuery] = useState("");
  const [imported, setImported] = useState<string>();
  const searchId = useId();

  const load = useCallback(async () => {
    try {
      setSessions(await api.listSessions());
      setFailure(undefined);
    } catch (caught) {
      setFailure(caught);
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);
  // Another tab, client or a task's start and end change the list: it follows them live.
  useSessionEvents(load);

  const importFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const input = event.currentTarget;
    const file = input.files?.[0];
    if (!file) return;
    setImported(undefined);
    try {
      const answer = await api.importSession(await file.text());
      setImported(
        answer.session.id === answer.original_id
          ? `Imported ${answer.session.title || answer.session.id}.`
          : `Imported ${answer.session.title || answer.session.id} as ${answer.session.id} (its id ${answer.original_id} is taken here).`,
      );
      setFailure(undefined);
      await load();
    } catch (caught) {
      setFailure(caught);
    } finally {
      input.value = "";
    }
  };

  const shown = sessions?.filter((session) => matchesSearch(session, query));

  return (
    <div className="page">
      <CreateSessionForm />
      <section aria-labelledby={`${searchId}-heading`}>
        <h2 id={`${searchId}-heading`}>Sessions</h2>
        <div className="session-tools">
          <label>
            Search sessions
            <input
              id={searchId}
              type="search"
              placeholder="title or workspace"
              value={query}
              onChange={(e) => setQuery(e.target.value)}
            />
          </label>
          <label>
            Import a session export
            <input type="file" accept=".jsonl,application/x-ndjson" onChange={(e) => void importFile(e)} />
          </label>
        </div>
        <p role="status" className="saved">
          {imported}
        </p>
        <ErrorText error={failure} />
        {sessions === undefined || shown === undefined ? (
          <p className="muted">Loading…</p>
        ) : sessions.length === 0 ? (
          <p className="muted">No sessions yet.</p>
        ) : shown.length === 0 ? (
          <p className="muted">No session matches “{query}”.</p>
        ) : (
          <SessionTable sessions={shown} onChanged={() => void load()} />
        )}
      </section>
    </div>
  );
}
