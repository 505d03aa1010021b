import { useState } from "react";
import { api } from "../api/client.js";
import { APPROVAL_MODE_HINTS, APPROVAL_MODES, type Session, type SessionApprovalMode } from "../api/types.js";
import { ErrorText } from "./error-text.js";

/**
 * The session's approval mode. The server re-reads it at every decision, so a change applies to
 * the next call of a running task too.
 */
export function ModeSwitch({ session, onChange }: { session: Session; onChange(session: Session): void }) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>();

  const choose = async (mode: SessionApprovalMode) => {
    if (mode === session.approval_mode) return;
    setBusy(true);
    setFailure(undefined);
    try {
      onChange(await api.setApprovalMode(session.id, mode));
    } catch (caught) {
      setFailure(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="mode-switch">
      <fieldset className="segmented" disabled={busy}>
        <legend className="visually-hidden">Approval mode</legend>
        {APPROVAL_MODES.map((mode) => (
          <label
            key={mode}
            title={APPROVAL_MODE_HINTS[mode]}
            className={mode === session.approval_mode ? "on" : ""}
          >
            <input
              type="radio"
              name={`approval-mode-${session.id}`}
              value={mode}
              checked={mode === session.approval_mode}
              onChange={() => choose(mode)}
            />
            {mode}
          </label>
        ))}
      </fieldset>
      <ErrorText error={failure} />
    </div>
  );
}
