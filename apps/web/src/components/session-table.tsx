import { type FormEvent, type KeyboardEvent, useState } from "react";
import { api } from "../api/client.js";
import type { SessionListItem } from "../api/types.js";
import { hrefOf } from "../router.js";
import { exactTime, formatCost, relativeTime } from "../sessions/relative-time.js";
import { ConfirmDialog } from "./confirm-dialog.js";
import { ErrorText } from "./error-text.js";

const nameOf = (session: SessionListItem) => session.title || session.id;

function When({ iso, now }: { iso: string; now: Date }) {
  return (
    <time dateTime={iso} title={exactTime(iso)}>
      {relativeTime(iso, now)}
    </time>
  );
}

/**
 * The sessions as a table: title (renamed in place), workspace, model, status, created and last
 * active (relative, the exact time on hover), cost, and per row Rename, Export and Delete (after a
 * confirmation). `onChanged` reloads the list after a rename or a delete.
 */
export function SessionTable(props: { sessions: SessionListItem[]; onChanged: () => void }) {
  const [renaming, setRenaming] = useState<string>();
  const [deleting, setDeleting] = useState<SessionListItem>();
  const [failure, setFailure] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const now = new Date();

  const remove = async () => {
    if (!deleting) return;
    setBusy(true);
    setFailure(undefined);
    try {
      await api.deleteSession(deleting.id);
      props.onChanged();
    } catch (caught) {
      setFailure(caught);
    } finally {
      setBusy(false);
      setDeleting(undefined);
    }
  };

  return (
    <>
      <ErrorText error={failure} />
      {/* At phone width the table scrolls inside its box; the page itself never scrolls sideways. */}
      <div className="session-table-scroll">
        <table className="session-table">
          <thead>
            <tr>
              <th scope="col">Title</th>
              <th scope="col">Workspace</th>
              <th scope="col">Model</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
              <th scope="col">Last active</th>
              <th scope="col">Cost</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.sessions.map((session) => (
              <tr key={session.id} data-testid="session-row" data-session-id={session.id}>
                <th scope="row">
                  {renaming === session.id ? (
                    <RenameForm
                      session={session}
                      onDone={(changed) => {
                        setRenaming(undefined);
                        if (changed) props.onChanged();
                      }}
                    />
                  ) : (
                    <a href={hrefOf({ page: "chat", sessionId: session.id })}>{nameOf(session)}</a>
                  )}
                </th>
                <td className="path">{session.workspace}</td>
                <td>
                  {session.provider}/{session.model_id}
                </td>
                <td>
                  <span className={`badge state-${session.state}`}>{session.state}</span>
                </td>
                <td>
                  <When iso={session.created_at} now={now} />
                </td>
                <td>
                  <When iso={session.updated_at} now={now} />
                </td>
                <td title={`${session.total_tokens} tokens`}>{formatCost(session.cost_usd)}</td>
                <td className="row-actions">
                  <button
                    type="button"
                    className="link"
                    aria-label={`Rename ${nameOf(session)}`}
                    onClick={() => setRenaming(session.id)}
                  >
                    Rename
                  </button>
                  <a
                    href={api.exportUrl(session.id)}
                    download={`${session.id}.jsonl`}
                    aria-label={`Export ${nameOf(session)}`}
                  >
                    Export
                  </a>
                  <button
                    type="button"
                    className="link"
                    aria-label={`Delete ${nameOf(session)}`}
                    onClick={() => setDeleting(session)}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {deleting && (
        <ConfirmDialog
          title="Delete session?"
          confirmLabel="Delete"
          busy={busy}
          onConfirm={() => void remove()}
          onCancel={() => setDeleting(undefined)}
        >
          <p>
            “{nameOf(deleting)}” and its trace, scratchpad and processes are removed. Export it first to keep
            a copy.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}

/** The title cell while renaming: Enter saves, Escape (or Cancel) leaves the title as it was. */
function RenameForm(props: { session: SessionListItem; onDone: (changed: boolean) => void }) {
  const [title, setTitle] = useState(props.session.title);
  const [failure, setFailure] = useState<unknown>();

  const save = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await api.renameSession(props.session.id, title.trim());
      props.onDone(true);
    } catch (caught) {
      setFailure(caught);
    }
  };
  const cancelOnEscape = (event: KeyboardEvent) => {
    if (event.key === "Escape") props.onDone(false);
  };

  return (
    <form className="rename-form" onSubmit={save} onKeyDown={cancelOnEscape}>
      <input
        aria-label={`New title for ${nameOf(props.session)}`}
        value={title}
        maxLength={120}
        onChange={(e) => setTitle(e.target.value)}
        // biome-ignore lint/a11y/noAutofocus: the field the Rename button asked for
        autoFocus
      />
      <button type="submit">Save</button>
      <button type="button" onClick={() => props.onDone(false)}>
        Cancel
      </button>
      <ErrorText error={failure} />
    </form>
  );
}
