import type { OmniMessage } from "@penguin/protocol";
import { useEffect, useState } from "react";
import { api } from "../api/client.js";
import type { AuditEntry, TraceResponse } from "../api/types.js";
import { ErrorText } from "../components/error-text.js";
import { hrefOf } from "../router.js";

/** The record's kind as one word: `session_meta`, or its payload type. */
function kindOf(record: OmniMessage): string {
  return record.type === "session_meta" ? "session_meta" : String((record.payload as { type: string }).type);
}

/** A one-line gist of a record, for scanning; the full JSON is one click away. */
function gist(record: OmniMessage): string {
  const p = record.payload as Record<string, unknown>;
  const pick = (...keys: string[]) =>
    keys.map((k) => p[k]).find((v) => typeof v === "string") as string | undefined;
  const text =
    pick(
      "text",
      "thinking",
      "output",
      "arguments",
      "reason",
      "message",
      "error_message",
      "status",
      "decision",
    ) ?? "";
  const prefix =
    typeof p.name === "string"
      ? `${p.name} `
      : typeof p.tool_call_id === "string"
        ? `${p.tool_call_id} `
        : "";
  const line = `${prefix}${text}`.replace(/\s+/g, " ").trim();
  return line.length > 160 ? `${line.slice(0, 157)}…` : line;
}

/** `by` of the audit table: the source's kind and name. */
function sourceText(source: NonNullable<AuditEntry["source"]>): string {
  return [source.kind, source.name].filter(Boolean).join(": ");
}

/**
 * A refused call's output is `aborted`, as the contract says; on its own that reads as if it was
 * interrupted, so the decision and who made it go beside it: `aborted (denied by human)`.
 */
function outcomeText(entry: AuditEntry): string {
  if (entry.outcome === undefined) return "";
  if (entry.decision === "allow") return entry.outcome;
  const verb = entry.decision === "forbidden" ? "forbidden" : "denied";
  if (entry.source?.kind === "no_terminal") return `${entry.outcome} (${verb}: no terminal to ask)`;
  return entry.source
    ? `${entry.outcome} (${verb} by ${sourceText(entry.source)})`
    : `${entry.outcome} (${verb})`;
}

/** The session's trace as written, and its approval audit: every decision with its source. */
export function TracePage({ sessionId }: { sessionId: string }) {
  const [trace, setTrace] = useState<TraceResponse>();
  const [audit, setAudit] = useState<AuditEntry[]>();
  const [failure, setFailure] = useState<unknown>();

  useEffect(() => {
    api.trace(sessionId).then(setTrace, setFailure);
    api.audit(sessionId).then(setAudit, setFailure);
  }, [sessionId]);

  return (
    <div className="page">
      <p>
        <a href={hrefOf({ page: "chat", sessionId })}>← Back to the session</a>
      </p>
      <ErrorText error={failure} />
      <section className="card">
        <h2>Approval audit</h2>
        {audit === undefined ? (
          <p className="muted">Loading…</p>
        ) : audit.length === 0 ? (
          <p className="muted">No approval decisions yet.</p>
        ) : (
          <table className="audit" data-testid="audit-table">
            <thead>
              <tr>
                <th>Time</th>
                <th>Tool</th>
                <th>Call</th>
                <th>Decision</th>
                <th>By</th>
                <th>Reason</th>
                <th>Outcome</th>
              </tr>
            </thead>
            <tbody>
              {audit.map((entry) => (
                <tr key={`${entry.toolCallId}:${entry.timestamp}`} data-tool-call-id={entry.toolCallId}>
                  <td>{new Date(entry.timestamp).toLocaleTimeString()}</td>
                  <td>{entry.toolName ?? ""}</td>
                  <td>
                    <code>{entry.toolCallId}</code>
                  </td>
                  <td className={`decision-${entry.decision}`}>{entry.decision}</td>
                  <td>{entry.source ? sourceText(entry.source) : ""}</td>
                  <td>{entry.reason ?? ""}</td>
                  <td>{outcomeText(entry)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="card">
        <h2>Trace</h2>
        {trace?.diagnostics.map((d) => (
          <p key={`${d.path}:${d.line}`} className="error">
            {d.path}:{d.line}: {d.kind}: {d.message}
          </p>
        ))}
        {trace === undefined ? (
          <p className="muted">Loading…</p>
        ) : (
          <ol className="trace" data-testid="trace-records">
            {trace.records.map((record, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a trace is append-only, so a position never changes meaning
              <li key={index}>
                <details>
                  <summary>
                    <span className="muted">{new Date(record.timestamp).toLocaleTimeString()}</span>{" "}
                    <span className="badge">{kindOf(record)}</span> {gist(record)}
                  </summary>
                  <pre>{JSON.stringify(record, null, 2)}</pre>
                </details>
              </li>
            ))}
          </ol>
        )}
      </section>
    </div>
  );
}
