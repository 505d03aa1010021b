import { useEffect, useState } from "react";

/** Lines of a running call's output shown without opening it: the newest ones. */
export const TAIL_LINES = 4;
/** Lines an opened output shows at first, and how many more each "Show more" adds. */
export const OUTPUT_PAGE_LINES = 400;

function linesOf(text: string): string[] {
  return text === "" ? [] : text.replace(/\n$/, "").split("\n");
}

const plural = (count: number, noun: string) =>
  `${count.toLocaleString("en")} ${noun}${count === 1 ? "" : "s"}`;

/** Seconds since `since` (an ISO time), counted up once a second while it is shown. */
export function Elapsed({ since }: { since: string }) {
  const started = Date.parse(since);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const seconds = Number.isNaN(started) ? 0 : Math.max(0, Math.floor((now - started) / 1000));
  const shown = seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m ${seconds % 60}s`;
  return (
    <span className="elapsed" data-testid="call-elapsed" title={new Date(started).toLocaleString()}>
      {shown}
    </span>
  );
}

/** The newest lines of a running call's output, shown as they arrive. */
export function OutputTail({ output }: { output: string }) {
  const tail = linesOf(output).slice(-TAIL_LINES);
  if (tail.length === 0) return null;
  return (
    <pre className="output-tail" data-testid="output-tail" aria-live="polite">
      {tail.join("\n")}
    </pre>
  );
}

/**
 * A call's output, collapsed until opened; a long one shows its first page and a button for the
 * next (a million-line output does not become a million DOM lines at once).
 */
export function CallOutput({ output, streaming }: { output: string; streaming: boolean }) {
  const [shownLines, setShownLines] = useState(OUTPUT_PAGE_LINES);
  const lines = linesOf(output);
  const hidden = lines.length - shownLines;
  return (
    <details className="output" data-testid="call-output">
      <summary>
        Output ({plural(lines.length, "line")}
        {streaming ? ", streaming" : ""})
      </summary>
      <pre>{hidden > 0 ? lines.slice(0, shownLines).join("\n") : output}</pre>
      {hidden > 0 && (
        <button type="button" className="link" onClick={() => setShownLines((n) => n + OUTPUT_PAGE_LINES)}>
          Show {plural(Math.min(hidden, OUTPUT_PAGE_LINES), "more line")} (of {plural(hidden, "line")} not
          shown)
        </button>
      )}
    </details>
  );
}
