import { type CallDiff, type DiffLine, diffOfPatch } from "../stream/call-diff.js";
import { DiffView } from "./diff-view.js";

/**
 * What a waiting call would do, shown as what it is (never as its raw JSON): a command as a code
 * line, an edit as a diff, a write as the file's content, a patch as its diff, anything else as
 * one row per argument. What the model wrote is shown as text, never as markup.
 */

type Args = Record<string, unknown>;

function parsedArguments(json: string): Args | undefined {
  try {
    const value: unknown = JSON.parse(json);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Args) : undefined;
  } catch {
    return undefined;
  }
}

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** An edit's old text against its new text, as the removed and added lines of one hunk. */
function editDiff(path: string, oldText: string, newText: string): CallDiff {
  const removed = oldText.split("\n").map((line): DiffLine => ({ kind: "remove", text: `-${line}` }));
  const added = newText.split("\n").map((line): DiffLine => ({ kind: "add", text: `+${line}` }));
  return {
    lines: [
      { kind: "file", text: `--- ${path}` },
      { kind: "file", text: `+++ ${path}` },
      ...removed,
      ...added,
    ],
    added: added.length,
    removed: removed.length,
  };
}

/** The arguments not shown otherwise, one row each (strings as written, others as JSON). */
function ArgumentRows({ args, skip }: { args: Args; skip: string[] }) {
  const rows = Object.entries(args).filter(([key]) => key !== "description" && !skip.includes(key));
  if (rows.length === 0) return null;
  return (
    <dl className="approval-args">
      {rows.map(([key, value]) => (
        <div key={key}>
          <dt>{key}</dt>
          <dd>{typeof value === "string" ? value : JSON.stringify(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

export function ApprovalArguments({ name, argumentsJson }: { name: string; argumentsJson: string }) {
  const args = parsedArguments(argumentsJson);
  // Arguments that are not an object never run (the Environment refuses them); show them as sent.
  if (args === undefined) return <pre className="approval-raw">{argumentsJson}</pre>;
  const command = text(args.cmd) ?? (name === "run_command" ? text(args.command) : undefined);
  if ((name === "exec_command" || name === "run_command") && command !== undefined) {
    return (
      <>
        <pre className="approval-command" data-testid="approval-command">
          <code>$ {command}</code>
        </pre>
        <ArgumentRows args={args} skip={["cmd", "command"]} />
      </>
    );
  }
  const path = text(args.file_path);
  const oldText = text(args.old_string);
  const newText = text(args.new_string);
  if (name === "edit_file" && path !== undefined && oldText !== undefined && newText !== undefined) {
    return (
      <>
        <DiffView diff={editDiff(path, oldText, newText)} />
        <ArgumentRows args={args} skip={["file_path", "old_string", "new_string"]} />
      </>
    );
  }
  const content = text(args.content);
  if (name === "write_file" && path !== undefined && content !== undefined) {
    return (
      <>
        <p className="approval-path">
          Write <code>{path}</code>
        </p>
        <pre className="approval-content" data-testid="approval-content">
          {content}
        </pre>
        <ArgumentRows args={args} skip={["file_path", "content"]} />
      </>
    );
  }
  const patch = text(args.patch);
  const patchDiff = name === "apply_patch" && patch !== undefined ? diffOfPatch(patch) : undefined;
  if (patchDiff !== undefined) return <DiffView diff={patchDiff} />;
  return <ArgumentRows args={args} skip={[]} />;
}
