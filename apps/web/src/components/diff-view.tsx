import "./diff-view.css";
import type { CallDiff } from "../stream/call-diff.js";

/** A unified diff, one line per row, coloured by what the line does; the text stays as written. */
export function DiffView({ diff }: { diff: CallDiff }) {
  return (
    <details className="call-diff" data-testid="call-diff" open>
      <summary>
        Diff <span className="diff-count-add">+{diff.added}</span>{" "}
        <span className="diff-count-remove">−{diff.removed}</span>
      </summary>
      <pre className="diff">
        {diff.lines.map((line, index) => (
          // The lines never move: their position is their identity.
          // biome-ignore lint/suspicious/noArrayIndexKey: a diff's lines are fixed once shown.
          <span key={index} className={`diff-line diff-${line.kind}`} data-kind={line.kind}>
            {line.text}
            {"\n"}
          </span>
        ))}
      </pre>
    </details>
  );
}
