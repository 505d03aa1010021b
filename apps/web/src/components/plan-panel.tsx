import { useState } from "react";
import "./plan-panel.css";
import { api } from "../api/client.js";
import { EXECUTION_MODES, type ExecutionMode, type Session } from "../api/types.js";
import type { PlanView } from "../stream/plan.js";
import { ErrorText } from "./error-text.js";
import { MarkdownText } from "./markdown-text.js";
import { PlanChecklist } from "./plan-checklist.js";

/**
 * The model's latest checklist, kept in view while the chat scrolls (sticky), so the person sees
 * where the work stands without looking for the last update in the timeline.
 */
export function PlanPanel({ plan }: { plan: PlanView }) {
  if (!plan.steps || plan.steps.length === 0) return null;
  return (
    <aside className="plan-panel card" data-testid="plan-panel" aria-label="The agent's plan">
      <PlanChecklist
        steps={plan.steps}
        {...(plan.note ? { note: plan.note } : {})}
        testId="plan-panel-checklist"
      />
    </aside>
  );
}

/**
 * The mode an approved plan runs in, preselected: the mode the person can watch every step in
 * (each call waits for them), unless they pick one that asks less.
 */
const DEFAULT_EXECUTION_MODE: ExecutionMode = "always-ask";

/**
 * A plan the model proposed in plan mode, waiting for the person: approving it switches the
 * session to the chosen mode and starts carrying it out; a message sent instead adjusts it (the
 * session stays in plan mode and plans again). Shown only while nothing runs.
 */
export function PlanReadyCard({
  session,
  ready,
  onApproved,
}: {
  session: Session;
  ready: NonNullable<PlanView["ready"]>;
  onApproved(session: Session): void;
}) {
  const [mode, setMode] = useState<ExecutionMode>(DEFAULT_EXECUTION_MODE);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>();

  const approve = async () => {
    setBusy(true);
    setFailure(undefined);
    try {
      const answer = await api.approvePlan(session.id, mode);
      onApproved(answer.session);
      // The card goes away when the stream reports the new task.
    } catch (caught) {
      setFailure(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="plan-ready card" data-testid="plan-ready" aria-label="Plan ready">
      <h2>Plan ready</h2>
      <MarkdownText text={ready.text} />
      {ready.path && <p className="muted">Saved to {ready.path}</p>}
      <div className="plan-ready-actions">
        <label>
          Run it in{" "}
          <select
            aria-label="Mode to run the plan in"
            value={mode}
            disabled={busy}
            onChange={(event) => setMode(event.target.value as ExecutionMode)}
          >
            {EXECUTION_MODES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={approve} disabled={busy}>
          Approve plan
        </button>
      </div>
      <p className="muted hint">
        {session.approval_mode === "plan"
          ? "To change the plan, type what to adjust below: the agent plans again."
          : "The session has left plan mode: switch back to plan to adjust the plan with a message."}
      </p>
      <ErrorText error={failure} />
    </section>
  );
}
