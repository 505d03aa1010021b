import type { Style } from "./style.js";

// Diffs shown at the terminal: edit_file's and write_file's unified diffs (and one a command
// prints, such as `git diff`), apply_patch's patch and summary. Added lines in green, removed
// ones in red, hunk headers in cyan; other lines dim, as every tool output is. Without colour
// (a pipe, NO_COLOR) the style leaves every line as it is.

/**
 * The line collapseOutput puts where it folded lines away: a diff goes on after it. `\u2026` is
 * "…", written as an escape so that the one-file build stays ASCII (tsup.start-up.config.ts).
 */
const FOLD_MARKER = /^\u2026 \d+ more lines \u2026$/;
/** The one-line summary of a change too large to diff: `+80/−100 lines`. */
const CHANGE_SUMMARY = /^\+(\d+)\/\u2212(\d+) lines$/;
/** apply_patch's line per file: `A path`, `M path (+1 −1)`, `R from -> to`, `D path`. */
const PATCH_SUMMARY = /^([AMDR]) (.*?)( \(\+\d+ \u2212\d+\))?$/;

/** A diff line's colour, by its first character; undefined for a line that is no diff line. */
function diffLine(line: string, style: Style): string | undefined {
  if (line.startsWith("@@")) return style.cyan(line);
  if (line.startsWith("+")) return style.green(line);
  if (line.startsWith("-")) return style.red(line);
  if (line.startsWith(" ") || line === "" || line.startsWith("\\")) return style.dim(line);
  return undefined;
}

/** `(+3 −1)` with the added count green and the removed one red. */
function counts(text: string, style: Style): string {
  return text
    .replace(/\+\d+/, (added) => style.green(added))
    .replace(/\u2212\d+/, (removed) => style.red(removed));
}

/**
 * A tool's output, line by line, for the terminal: the lines of each unified diff in it (from
 * its `--- a` / `+++ b` or `diff --git` header to its last hunk line) coloured, the rest dim.
 */
export function styleToolOutput(output: string, toolName: string | undefined, style: Style): string[] {
  const lines = output.split("\n");
  let inDiff = false;
  return lines.map((line, i) => {
    if (line.startsWith("diff --git ") || (line.startsWith("--- ") && lines[i + 1]?.startsWith("+++ "))) {
      inDiff = true;
      return style.bold(line);
    }
    if (inDiff && line.startsWith("+++ ")) return style.bold(line);
    if (inDiff) {
      if (FOLD_MARKER.test(line)) return style.dim(line);
      const coloured = diffLine(line, style);
      if (coloured !== undefined) return coloured;
      inDiff = false;
    }
    const summary = CHANGE_SUMMARY.exec(line);
    if (summary) return counts(line, style);
    if (toolName === "apply_patch") {
      const entry = PATCH_SUMMARY.exec(line);
      if (entry) {
        const mark = entry[1] === "A" ? style.green : entry[1] === "D" ? style.red : style.yellow;
        return `${mark(entry[1])} ${entry[2]}${entry[3] ? counts(entry[3], style) : ""}`;
      }
    }
    return style.dim(line);
  });
}

/** The lines of an apply_patch patch, coloured as a diff (its `***` lines bold). */
export function stylePatch(patch: string, style: Style): string[] {
  return patch.split("\n").map((line) => {
    if (line.startsWith("***")) return style.bold(line);
    return diffLine(line, style) ?? line;
  });
}
