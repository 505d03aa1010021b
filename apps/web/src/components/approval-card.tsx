import { useState } from "react";
import { api } from "../api/client.js";
import type { PendingApproval } from "../api/types.js";
import { callDescription } from "../stream/call-description.js";
import { ErrorText } from "./error-text.js";

/** A call waiting for a human: what it would do, and Allow / Deny. */
export function ApprovalCard({ sessionId, approval }: { sessionId: string; approval: PendingApproval }) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>();
  const { name, arguments: args } = approval.tool_call.payload;
  const description = callDescription(args);

  const decide = async (decision: "allow" | "deny") => {
    setBusy(true);
    setFailure(undefined);
    try {
      await api.decide(sessionId, approval.tool_call_id, decision);
      // The card goes away when the stream reports the decision.
    } catch (caught) {
      setFailure(caught);
      setBusy(false);
    }
  };

  return (
    <div className="approval-card" data-testid="approval-card" data-tool-call-id={approval.tool_call_id}>
      <div className="approval-text">
        <strong>{name}</strong>
        {description !== undefined && <span className="call-description">{description}</span>}
        {approval.origin && <span className="badge">subagent {approval.origin.join(" › ")}</span>}
        <pre>{args}</pre>
      </div>
      <div className="approval-buttons">
        <button type="button" className="allow" disabled={busy} onClick={() => decide("allow")}>
          Allow
        </button>
        <button type="button" className="deny" disabled={busy} onClick={() => decide("deny")}>
          Deny
        </button>
      </div>
      <ErrorText error={failure} />
    </div>
  );
}
