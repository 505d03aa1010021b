import { useCallback, useEffect, useState } from "react";
import { api } from "../api/client.js";
import type { Session } from "../api/types.js";
import { AgentsPanel } from "../components/agents-panel.js";
import { ApprovalCard } from "../components/approval-card.js";
import { useChatKeys } from "../components/chat-keys.js";
import { CompactButton } from "../components/compact-button.js";
import { Composer } from "../components/composer.js";
import { ErrorText } from "../components/error-text.js";
import { ModeSwitch } from "../components/mode-switch.js";
import { PlanPanel, PlanReadyCard } from "../components/plan-panel.js";
import { QuestionCard } from "../components/question-card.js";
import { RecoveryPanel } from "../components/recovery-panel.js";
import { TimelineView } from "../components/timeline-view.js";
import { UsageMeter } from "../components/usage-meter.js";
import { hrefOf } from "../router.js";
import { followSession, type StreamStatus } from "../stream/session-stream.js";
import type { TimelineState } from "../stream/timeline.js";

/**
 * One session: its live timeline, the model's plan, the calls and questions waiting for you, the
 * mode, and the input box.
 */
export function ChatPage({ sessionId }: { sessionId: string }) {
  const [session, setSession] = useState<Session>();
  const [timeline, setTimeline] = useState<TimelineState>();
  const [stream, setStream] = useState<{ status: StreamStatus; detail?: string }>({ status: "connecting" });
  const [failure, setFailure] = useState<unknown>();

  useEffect(() => {
    api.getSession(sessionId).then(setSession, setFailure);
    const follower = followSession(sessionId, {
      onState: setTimeline,
      onStatus: (status, detail) => setStream({ status, ...(detail ? { detail } : {}) }),
    });
    return () => follower.close();
  }, [sessionId]);

  // A change made elsewhere (another tab's mode switch) arrives on the stream as the new row.
  const streamedSession = timeline?.session;
  useEffect(() => {
    if (streamedSession) setSession(streamedSession);
  }, [streamedSession]);

  const busy = (timeline?.task.state ?? "idle") !== "idle";
  const abort = useCallback(() => {
    api.abort(sessionId).catch(setFailure);
  }, [sessionId]);
  useChatKeys({ busy, abort });

  if (!session) {
    return (
      <div className="page">
        {failure ? <ErrorText error={failure} /> : <p className="muted">Loading…</p>}
      </div>
    );
  }
  const taskState = timeline?.task.state ?? "idle";
  const running = taskState === "running";
  return (
    <div className="page chat">
      <section className="chat-header card">
        <div>
          <h1>{session.title || session.id}</h1>
          <p className="muted">
            {session.workspace} · {session.provider}/{session.model_id} · agent {session.agent_id}
          </p>
          {timeline && <UsageMeter usage={timeline.usage} contextWindow={timeline.contextWindow} />}
        </div>
        <div className="chat-controls">
          <ModeSwitch session={session} onChange={setSession} />
          <CompactButton sessionId={sessionId} disabled={taskState !== "idle"} />
          <span className={`badge state-${taskState}`} data-testid="task-state">
            {taskState}
            {timeline && timeline.task.pendingSteering > 0
              ? ` · ${timeline.task.pendingSteering} queued`
              : ""}
          </span>
          <a href={hrefOf({ page: "trace", sessionId })}>Trace</a>
        </div>
      </section>
      <ErrorText error={failure} />
      {stream.status !== "live" && (
        <p
          className={stream.status === "ended" ? "banner error" : "banner"}
          data-testid="stream-status"
          role={stream.status === "ended" ? "alert" : undefined}
        >
          {streamBanner(stream)}
        </p>
      )}
      {timeline && <PlanPanel plan={timeline.plan} />}
      <TimelineView
        items={timeline?.items ?? []}
        context={{
          sessionId,
          workspace: session.workspace,
          busy: taskState !== "idle",
          ...(timeline ? { taskUsage: timeline.usage.tasks } : {}),
        }}
      />
      {timeline && <AgentsPanel sessionId={sessionId} activity={timeline.agents} taskState={taskState} />}
      <RecoveryPanel sessionId={sessionId} taskState={taskState} />
      {timeline && timeline.approvals.length > 0 && (
        <section className="approvals" aria-label="Waiting for approval">
          <h2>Waiting for your approval</h2>
          {timeline.approvals.map((approval) => (
            <ApprovalCard
              key={approval.tool_call_id}
              sessionId={sessionId}
              approval={approval}
              mode={session.approval_mode}
            />
          ))}
        </section>
      )}
      {timeline && timeline.questions.length > 0 && (
        <section className="questions" aria-label="Questions for you">
          <h2>The agent asks you</h2>
          {timeline.questions.map((question) => (
            <QuestionCard key={question.question_id} sessionId={sessionId} question={question} />
          ))}
        </section>
      )}
      {timeline?.plan.ready && taskState === "idle" && (
        <PlanReadyCard session={session} ready={timeline.plan.ready} onApproved={setSession} />
      )}
      <Composer sessionId={sessionId} running={running} compacting={taskState === "compacting"} />
    </div>
  );
}

function streamBanner({ status, detail }: { status: StreamStatus; detail?: string }): string {
  switch (status) {
    case "connecting":
      return "Connecting…";
    case "reconnecting":
      return `Reconnecting: ${detail ?? ""}`;
    case "ended":
      return `Live updates stopped: ${detail ?? ""}`;
    default:
      return "";
  }
}
