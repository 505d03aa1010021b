import { estimateTokensOfText } from "@penguin/protocol/stream";
import { useEffect, useRef } from "react";
import { loadMarkdownRenderer } from "../markdown/lazy-renderer.js";
import { compactionText, goalText } from "../stream/long-session.js";
import type { TimelineItem } from "../stream/timeline.js";
import { type UsageTotals, usageText } from "../stream/usage.js";
import { ChangesCard } from "./changes-card.js";
import { MarkdownText } from "./markdown-text.js";
import { PlanChecklist } from "./plan-checklist.js";
import { ToolCallCard } from "./tool-call-card.js";

/** What the items need to know of their session: where its workspace is, whether it is busy. */
export interface TimelineContext {
  sessionId?: string;
  workspace?: string;
  /** A task or a compaction runs. */
  busy: boolean;
  /** Each finished task's usage, by the key of its "Task completed" line. */
  taskUsage?: Record<string, UsageTotals>;
}

function OriginBadge({ origin }: { origin?: string[] }) {
  return origin ? <span className="badge">subagent {origin.join(" › ")}</span> : null;
}

function Item({ item, context }: { item: TimelineItem; context: TimelineContext }) {
  switch (item.kind) {
    case "text":
      return (
        <div
          className={`message role-${item.role}${item.streaming ? " streaming" : ""}`}
          data-testid="message-text"
          data-role={item.role}
          data-streaming={item.streaming}
        >
          <OriginBadge origin={item.origin} />
          {item.role === "user" ? (
            <div className="message-body">{item.text}</div>
          ) : (
            <MarkdownText text={item.text} />
          )}
        </div>
      );
    case "thinking":
      return (
        <details className={`thinking${item.streaming ? " streaming" : ""}`} data-testid="message-thinking">
          <summary>
            {item.streaming ? "Thinking…" : "Thinking"}{" "}
            <span className="muted" data-testid="thinking-tokens">
              · about {estimateTokensOfText(item.text).toLocaleString("en")} tokens
            </span>{" "}
            <OriginBadge origin={item.origin} />
          </summary>
          <MarkdownText text={item.text} />
        </details>
      );
    case "tool":
      return <ToolCallCard call={item.call} origin={item.origin} />;
    case "image":
      return <img className="message-image" src={item.src} alt="from the session" />;
    case "compaction": {
      const { compaction } = item;
      const failed = compaction.status !== undefined && compaction.status !== "completed";
      return (
        <div
          className={`compaction tone-${failed ? "bad" : "info"}`}
          data-testid="compaction"
          data-status={compaction.status ?? "running"}
          data-reason={compaction.reason}
        >
          <p className="status-line">{compactionText(compaction)}</p>
          {compaction.summary && compaction.status === "completed" && (
            <details>
              <summary>Summary</summary>
              <MarkdownText text={compaction.summary} />
            </details>
          )}
        </div>
      );
    }
    case "goal":
      return (
        <p
          className={`goal-finished tone-${item.goal.outcome === "complete" ? "good" : "bad"}`}
          data-testid="goal-finished"
          data-outcome={item.goal.outcome}
        >
          {goalText(item.goal)}
        </p>
      );
    case "plan":
      return <PlanChecklist steps={item.steps} {...(item.note ? { note: item.note } : {})} />;
    case "plan-proposed":
      return (
        <p className="plan-proposed" data-testid="plan-proposed">
          Plan proposed{item.path ? ` (saved to ${item.path})` : ""}
        </p>
      );
    case "changes":
      return (
        <ChangesCard
          changes={item.changes}
          busy={context.busy}
          {...(context.sessionId ? { sessionId: context.sessionId } : {})}
          {...(context.workspace ? { workspace: context.workspace } : {})}
        />
      );
    case "status": {
      const usage = context.taskUsage?.[item.key];
      return (
        <p className={`status-line tone-${item.tone === "error" ? "bad" : "info"}`} data-testid="status-line">
          {item.text}
          {usage && usage.requests > 0 && (
            <span className="task-usage" data-testid="task-usage">
              {" "}
              · {usageText(usage)}
            </span>
          )}
        </p>
      );
    }
  }
}

/** The session's messages in order, the live streams last; it follows the bottom while you are there. */
export function TimelineView({
  items,
  context = { busy: false },
}: {
  items: TimelineItem[];
  context?: TimelineContext;
}) {
  const end = useRef<HTMLDivElement>(null);
  const following = useRef(true);

  useEffect(() => {
    // Fetch the Markdown renderer while the history loads, not when the first answer shows.
    loadMarkdownRenderer().catch(() => {});
    const onScroll = () => {
      const bottom = document.documentElement.scrollHeight - window.innerHeight - window.scrollY;
      following.current = bottom < 120;
    };
    window.addEventListener("scroll", onScroll, { passive: true });
    return () => window.removeEventListener("scroll", onScroll);
  }, []);

  useEffect(() => {
    if (following.current && items.length > 0) end.current?.scrollIntoView({ block: "end" });
  }, [items]);

  return (
    <div className="timeline" data-testid="timeline">
      {items.length === 0 && <p className="muted">Nothing here yet: ask for something below.</p>}
      {items.map((item) => (
        <Item key={item.key} item={item} context={context} />
      ))}
      <div ref={end} />
    </div>
  );
}
