import { useEffect, useRef } from "react";
import type { TimelineItem } from "../stream/timeline.js";
import { ToolCallCard } from "./tool-call-card.js";

function OriginBadge({ origin }: { origin?: string[] }) {
  return origin ? <span className="badge">subagent {origin.join(" › ")}</span> : null;
}

function Item({ item }: { item: TimelineItem }) {
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
          <div className="message-body">{item.text}</div>
        </div>
      );
    case "thinking":
      return (
        <details className={`thinking${item.streaming ? " streaming" : ""}`} data-testid="message-thinking">
          <summary>
            {item.streaming ? "Thinking…" : "Thinking"} <OriginBadge origin={item.origin} />
          </summary>
          <div className="message-body">{item.text}</div>
        </details>
      );
    case "tool":
      return <ToolCallCard call={item.call} origin={item.origin} />;
    case "image":
      return <img className="message-image" src={item.src} alt="from the session" />;
    case "status":
      return (
        <p className={`status-line tone-${item.tone === "error" ? "bad" : "info"}`} data-testid="status-line">
          {item.text}
        </p>
      );
  }
}

/** The session's messages in order, the live streams last; it follows the bottom while you are there. */
export function TimelineView({ items }: { items: TimelineItem[] }) {
  const end = useRef<HTMLDivElement>(null);
  const following = useRef(true);

  useEffect(() => {
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
        <Item key={item.key} item={item} />
      ))}
      <div ref={end} />
    </div>
  );
}
