import { useState } from "react";
import { api } from "../api/client.js";
import { ErrorText } from "./error-text.js";

/**
 * Compacts the session's context now. Disabled while a task or a compaction runs (the server
 * runs one at a time); the compaction itself shows in the timeline.
 */
export function CompactButton({ sessionId, disabled }: { sessionId: string; disabled: boolean }) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>();

  const compact = async () => {
    setBusy(true);
    setFailure(undefined);
    try {
      await api.compact(sessionId);
    } catch (caught) {
      setFailure(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <span>
      <button
        type="button"
        onClick={compact}
        disabled={disabled || busy}
        title="Replace the conversation so far with a summary, to make room in the context window"
      >
        Compact
      </button>
      <ErrorText error={failure} />
    </span>
  );
}
