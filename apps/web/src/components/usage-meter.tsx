import { type SessionUsage, tokenCount, usageText } from "../stream/usage.js";

/** The chat header's usage: the session's tokens and cost, and how full the context window is. */
export function UsageMeter({ usage, contextWindow }: { usage: SessionUsage; contextWindow?: number }) {
  const used = usage.contextTokens ?? 0;
  const percent = contextWindow ? Math.min(100, Math.round((used / contextWindow) * 100)) : undefined;
  return (
    <div className="usage-meter" data-testid="session-usage">
      <span>Session: {usageText(usage.session)}</span>
      {contextWindow !== undefined && percent !== undefined && (
        <span className="context-fill">
          <span
            className={`context-bar${percent >= 80 ? " high" : ""}`}
            role="progressbar"
            aria-label="Context window"
            aria-valuemin={0}
            aria-valuemax={contextWindow}
            aria-valuenow={Math.min(used, contextWindow)}
            aria-valuetext={`${percent}% of ${tokenCount.format(contextWindow)} tokens`}
            data-testid="context-bar"
          >
            <span className="context-bar-fill" style={{ width: `${percent}%` }} />
          </span>
          <span className="muted">
            context {tokenCount.format(used)} / {tokenCount.format(contextWindow)} ({percent}%)
          </span>
        </span>
      )}
    </div>
  );
}
