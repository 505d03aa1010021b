import { useState } from "react";
import { api } from "../api/client.js";
import type { ApprovalAnswer, PendingApproval, SessionApprovalMode } from "../api/types.js";
import { callDescription } from "../stream/call-description.js";
import { ApprovalArguments } from "./approval-arguments.js";
import { ErrorText } from "./error-text.js";

/**
 * A call waiting for a person, with the choices the terminal offers: allow once, deny (with an
 * optional reason the model reads), allow the tool for the session, and for a command, allow
 * commands that start with a prefix (the server refuses a prefix that does not cover this one).
 */
export function ApprovalCard({
  sessionId,
  approval,
  mode,
}: {
  sessionId: string;
  approval: PendingApproval;
  /** The session's approval mode now: a call asked before a switch to allow-all still waits. */
  mode: SessionApprovalMode;
}) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>();
  const [reason, setReason] = useState("");
  const [prefix, setPrefix] = useState(approval.suggested_prefix ?? "");
  const { name, arguments: args } = approval.tool_call.payload;
  const description = callDescription(args);
  const id = approval.tool_call_id;

  const decide = async (answer: ApprovalAnswer) => {
    setBusy(true);
    setFailure(undefined);
    try {
      await api.decide(sessionId, id, answer);
      // The card goes away when the stream reports the decision.
    } catch (caught) {
      setFailure(caught);
      setBusy(false);
    }
  };
  const trimmedReason = reason.trim();

  return (
    <div className="approval-card" data-testid="approval-card" data-tool-call-id={id}>
      <div className="approval-text">
        <strong>{name}</strong>
        {description !== undefined && <span className="call-description">{description}</span>}
        {approval.origin && <span className="badge">subagent {approval.origin.join(" › ")}</span>}
        <ApprovalArguments name={name} argumentsJson={args} />
      </div>
      {mode === "allow-all" && (
        <p className="approval-note" role="note">
          The mode is now allow-all, but this call was asked before the switch: it still needs your answer.
        </p>
      )}
      <div className="approval-buttons">
        <button type="button" className="allow" disabled={busy} onClick={() => decide({ decision: "allow" })}>
          {mode === "allow-all" ? "Allow this one too" : "Allow once"}
        </button>
        <button
          type="button"
          disabled={busy}
          onClick={() => decide({ decision: "allow", remember: { tool: true } })}
        >
          Allow {name} for this session
        </button>
      </div>
      {approval.suggested_prefix !== undefined && (
        <div className="approval-prefix">
          <label>
            Commands starting with
            <input value={prefix} onChange={(event) => setPrefix(event.target.value)} disabled={busy} />
          </label>
          <button
            type="button"
            disabled={busy || prefix.trim() === ""}
            onClick={() => decide({ decision: "allow", remember: { command_prefix: prefix.trim() } })}
          >
            Allow for this session
          </button>
        </div>
      )}
      <div className="approval-deny">
        <label>
          Reason (optional, the model reads it)
          <input value={reason} onChange={(event) => setReason(event.target.value)} disabled={busy} />
        </label>
        <button
          type="button"
          className="deny"
          disabled={busy}
          onClick={() =>
            decide(trimmedReason ? { decision: "deny", reason: trimmedReason } : { decision: "deny" })
          }
        >
          Deny
        </button>
      </div>
      <ErrorText error={failure} />
    </div>
  );
}
