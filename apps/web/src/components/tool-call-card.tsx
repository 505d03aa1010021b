import { diffOfCall } from "../stream/call-diff.js";
import type { ToolCallView } from "../stream/timeline.js";
import { DiffView } from "./diff-view.js";

/** Where a call is in its life, from what the stream has told so far. */
export function callStatus(call: ToolCallView): { label: string; tone: string } {
  if (call.streaming) return { label: "writing", tone: "live" };
  if (call.waitingForApproval) return { label: "waiting for approval", tone: "wait" };
  if (call.decision && call.decision.decision !== "allow")
    return { label: call.decision.decision === "forbidden" ? "forbidden" : "denied", tone: "bad" };
  if (call.outputStreaming) return { label: "running", tone: "live" };
  if (call.output !== undefined) {
    const reason = call.stopReason;
    return reason && reason !== "completed"
      ? { label: reason, tone: "bad" }
      : { label: "done", tone: "good" };
  }
  if (call.decision) return { label: "running", tone: "live" };
  return { label: "pending", tone: "wait" };
}

/** The shell command of an exec_command call, when its arguments parse. */
function commandOf(call: ToolCallView): string | undefined {
  if (call.streaming || call.name !== "exec_command") return undefined;
  try {
    const args = JSON.parse(call.arguments) as { cmd?: unknown };
    return typeof args.cmd === "string" ? args.cmd : undefined;
  } catch {
    return undefined;
  }
}

function lineCount(text: string): number {
  return text === "" ? 0 : text.replace(/\n$/, "").split("\n").length;
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;

/**
 * One tool call: its name and description (shown from the moment the description starts
 * streaming), its status, the arguments and the output (both collapsed until opened).
 */
export function ToolCallCard({ call, origin }: { call: ToolCallView; origin?: string[] }) {
  const status = callStatus(call);
  const command = commandOf(call);
  const diff = diffOfCall(call);
  return (
    <article
      className={`tool-call tone-${status.tone}`}
      data-testid="tool-call"
      data-tool-call-id={call.toolCallId}
      data-status={status.label}
      // Reachable by j/k (not by Tab: the buttons and details inside are).
      tabIndex={-1}
      aria-label={`${call.name || "tool"} call: ${status.label}`}
    >
      <header>
        <span className="tool-name">{call.name || "tool"}</span>
        {call.description !== undefined && (
          <span className="call-description" data-testid="call-description">
            {call.description}
          </span>
        )}
        <span className={`badge tone-${status.tone}`} data-testid="call-status">
          {status.label}
        </span>
        {origin && <span className="badge">subagent {origin.join(" › ")}</span>}
      </header>
      {command !== undefined && <code className="command">$ {command}</code>}
      {call.decision && (
        <p className="decision muted" data-testid="call-decision">
          {call.decision.decision} by {call.decision.source ?? "policy"}
          {call.decision.reason ? ` — ${call.decision.reason}` : ""}
        </p>
      )}
      {diff && <DiffView diff={diff} />}
      <details className="arguments">
        <summary>Arguments</summary>
        <pre>{call.arguments}</pre>
      </details>
      {call.output !== undefined && (
        <details className="output" data-testid="call-output">
          <summary>
            Output ({plural(lineCount(call.output), "line")}
            {call.outputStreaming ? ", streaming" : ""})
          </summary>
          <pre>{call.output}</pre>
        </details>
      )}
    </article>
  );
}
