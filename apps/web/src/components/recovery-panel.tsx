import { useEffect, useState } from "react";
import { api } from "../api/client.js";
import type { RecoveryView, RetainedProcess, UncertainStep } from "../api/recovery-types.js";
import { ErrorText } from "./error-text.js";
import "./recovery-panel.css";

/** Characters of a call's arguments shown on its row; the whole text is the row's tooltip. */
const ARGUMENTS_SHOWN = 100;

const shortHash = (hash: string | null) => (hash === null ? "absent" : hash.slice(0, 12));
const head = (text: string) => {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > ARGUMENTS_SHOWN ? `${flat.slice(0, ARGUMENTS_SHOWN - 1)}…` : flat;
};

/** The pid, how it ended and the output kept, as far as the registry knows them. */
function processDetails(process: RetainedProcess): string {
  const parts: string[] = [];
  if (process.pid !== undefined) parts.push(`pid ${process.pid}`);
  const exit = process.exit;
  if (exit?.kind === "code") parts.push(`exit code ${exit.code}`);
  else if (exit?.kind === "signal") parts.push(`ended by ${exit.signal}`);
  else if (exit?.kind === "spawn-error") parts.push(`failed to start: ${exit.message}`);
  else if (process.state !== "running") parts.push("exit code unknown");
  if (process.output_bytes > 0) parts.push(`${process.output_bytes} bytes of output kept`);
  return parts.join(" · ");
}

/**
 * What a crash left half done in a session (GET /api/sessions/:id/recovery): the tool calls that
 * started with no result recorded, with the files they were changing and what Penguin found when
 * it checked, each with Accept / Retry and the evidence the user gives; the commands and jobs
 * that outlived the crash; and the decisions already taken. Hidden when there is nothing to show.
 */
export function RecoveryPanel({ sessionId, taskState }: { sessionId: string; taskState: string }) {
  const [view, setView] = useState<RecoveryView>({ uncertain: [], resolved: [], processes: [] });
  const [failure, setFailure] = useState<unknown>();
  const [tick, setTick] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a task state change or a decision is a reason to reload.
  useEffect(() => {
    let current = true;
    api.recovery(sessionId).then(
      (next) => {
        if (!current) return;
        setView(next);
        setFailure(undefined);
      },
      (error) => {
        if (current) setFailure(error);
      },
    );
    return () => {
      current = false;
    };
  }, [sessionId, taskState, tick]);

  const uncertain = view.uncertain.filter((step) => !step.in_progress);
  const processes = view.processes;
  // Commands that ended while Penguin watched are ordinary history: alone they are no reason to show the panel.
  const outlived = processes.some((process) => process.state !== "exited");
  if (uncertain.length === 0 && view.resolved.length === 0 && !outlived && !failure) return null;
  return (
    <section className="card recovery-panel" aria-label="Recovery">
      <h2>Recovery</h2>
      <ErrorText error={failure} />
      {uncertain.length > 0 && (
        <>
          <p className="muted">
            These calls started and no result was recorded (the session stopped while they ran): they may or
            may not have had their effect. Check, then accept (it happened) or retry (it must be redone).
          </p>
          <ul className="recovery-steps" aria-label="Uncertain steps">
            {uncertain.map((step) => (
              <UncertainRow
                key={step.tool_call_id}
                sessionId={sessionId}
                step={step}
                onResolved={() => setTick((n) => n + 1)}
              />
            ))}
          </ul>
        </>
      )}
      {processes.length > 0 && <p className="muted">The session's commands and jobs, as they are now:</p>}
      {processes.length > 0 && (
        <ul className="recovery-steps" aria-label="Commands and jobs">
          {processes.map((process) => (
            <li key={process.id} data-testid="retained-process" data-state={process.state}>
              <code>{process.id}</code> <span className="badge">{process.state}</span>{" "}
              <span className="muted">{head(process.command)}</span> {processDetails(process)}
            </li>
          ))}
        </ul>
      )}
      {view.resolved.length > 0 && (
        <ul className="recovery-steps" aria-label="Resolved steps">
          {view.resolved.map((step) => (
            <li key={step.tool_call_id} data-testid="resolved-step">
              <code>{step.tool_call_id}</code> {step.name}:{" "}
              <span className={`badge ${step.decision === "accept" ? "tone-good" : "tone-wait"}`}>
                {step.decision}
              </span>{" "}
              by {step.by}: {step.evidence}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function UncertainRow({
  sessionId,
  step,
  onResolved,
}: {
  sessionId: string;
  step: UncertainStep;
  onResolved: () => void;
}) {
  const [evidence, setEvidence] = useState("");
  const [failure, setFailure] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const resolve = (decision: "accept" | "retry") => {
    setBusy(true);
    api.resolveStep(sessionId, step.tool_call_id, decision, evidence.trim()).then(
      () => {
        setBusy(false);
        onResolved();
      },
      (error) => {
        setBusy(false);
        setFailure(error);
      },
    );
  };
  const ready = evidence.trim().length > 0 && !busy;
  return (
    <li data-testid="uncertain-step" data-call={step.tool_call_id} title={step.arguments}>
      <code>{step.tool_call_id}</code> <strong>{step.name}</strong>{" "}
      <span className="muted">{head(step.arguments)}</span>
      {step.files.length > 0 && (
        <ul className="recovery-files">
          {step.files.map((file) => (
            <li key={file.path}>
              {file.path}: {shortHash(file.before_sha256)} → {shortHash(file.after_sha256)}
            </li>
          ))}
        </ul>
      )}
      {step.process_id && <div className="muted">started {step.process_id}</div>}
      {step.evidence && (
        <div className="muted" data-testid="penguin-evidence">
          Penguin checked: {step.evidence}
          {step.suggestion ? ` (suggests ${step.suggestion})` : ""}
        </div>
      )}
      <div className="recovery-actions">
        <input
          aria-label={`What you checked for ${step.tool_call_id}`}
          placeholder="What you checked (required)"
          value={evidence}
          onChange={(event) => setEvidence(event.target.value)}
        />
        <button type="button" disabled={!ready} onClick={() => resolve("accept")}>
          Accept
        </button>
        <button type="button" disabled={!ready} onClick={() => resolve("retry")}>
          Retry
        </button>
      </div>
      <ErrorText error={failure} />
    </li>
  );
}
