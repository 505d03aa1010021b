import { relative } from "node:path";
import type { CommandChanges, TaskChangesPayload } from "@penguin/protocol";

// The lines a run shows at a task's end for the files its file tools changed (`task_changes`),
// and what its commands changed, which no undo takes back.

const MINUS = "\u2212";

/** A name quoted when it holds a control character: a newline in a file name must not break the line. */
export function quotedName(name: string): string {
  return /[\u0000-\u001f\u007f]/.test(name) ? JSON.stringify(name) : name;
}

/** A path relative to the current directory when it is below it, else absolute; quoted when it must be. */
export function shownPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return quotedName(rel === "" || rel.startsWith("..") ? path : rel);
}

/**
 * What a task's commands changed: `changed by commands (not undoable): a, b`, or why they are not
 * tracked; undefined when they changed nothing git sees.
 */
export function commandsLine(commands: CommandChanges): string | undefined {
  if (commands.tracked === "none") return `commands' changes are not tracked (${commands.reason})`;
  if (commands.files.length === 0) return undefined;
  const parts = commands.files.map((file) =>
    file.status === "changed" ? shownPath(file.path) : `${shownPath(file.path)} ${file.status}`,
  );
  return `changed by commands (not undoable): ${parts.join(", ")}`;
}

/**
 * `files changed: a.txt +1/−1 · b.txt added +3 · c.txt removed −2 (penguin undo reverts them)`,
 * and on a second line what the task's commands changed.
 */
export function changesLine(payload: TaskChangesPayload): string {
  const parts = payload.files.map((file) => {
    const counts =
      file.kind === "file"
        ? ` +${file.lines_added}/${MINUS}${file.lines_removed}`
        : file.kind === "directory"
          ? "/"
          : "";
    const status =
      file.status === "changed"
        ? ""
        : file.status === "moved" && file.from
          ? ` moved from ${shownPath(file.from)}`
          : ` ${file.status}`;
    const kept = file.restorable ? "" : " (not restorable)";
    return `${shownPath(file.path)}${status}${counts}${kept}`;
  });
  const lines =
    parts.length > 0 ? [`  ✎ files changed: ${parts.join(" · ")} (penguin undo reverts them)`] : [];
  const byCommands = payload.commands ? commandsLine(payload.commands) : undefined;
  if (byCommands) lines.push(`  ✎ ${byCommands}`);
  return lines.join("\n");
}
