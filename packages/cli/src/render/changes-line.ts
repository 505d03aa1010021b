import { relative } from "node:path";
import type { TaskChangesPayload } from "@penguin/protocol";

// The line a run shows at a task's end for the files its file tools changed (`task_changes`).

const MINUS = "\u2212";

/** `files changed: a.txt +1/−1 · b.txt added +3 · c.txt removed −2 (penguin undo reverts them)`. */
export function changesLine(payload: TaskChangesPayload): string {
  const shown = (path: string) => {
    const rel = relative(process.cwd(), path);
    return rel === "" || rel.startsWith("..") ? path : rel;
  };
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
          ? ` moved from ${shown(file.from)}`
          : ` ${file.status}`;
    const kept = file.restorable ? "" : " (not restorable)";
    return `${shown(file.path)}${status}${counts}${kept}`;
  });
  return `  ✎ files changed: ${parts.join(" · ")} (penguin undo reverts them)`;
}
