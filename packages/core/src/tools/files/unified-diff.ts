import { createRequire } from "node:module";
import type { StructuredPatch } from "diff";
import { DIFF_CONTEXT_LINES, DIFF_MAX_EDIT_LENGTH } from "../../environment/limits.js";

// The git-style unified diffs that edit_file and write_file echo, so the model (and the user)
// can verify a change without reading the file again.

type DiffLibrary = typeof import("diff");
let diffLibrary: DiffLibrary | undefined;

/** `diff` (its CommonJS build, some thirty modules) is loaded by the first edit, not at start-up. */
function diff(): DiffLibrary {
  diffLibrary ??= createRequire(import.meta.url)("diff") as DiffLibrary;
  return diffLibrary;
}

export type Hunk = StructuredPatch["hunks"][number];

/**
 * The line diff of two versions of a file, with nearby changes merged into one hunk; undefined
 * when the edit is too large to compute cheaply (the caller shows a summary instead).
 */
export function lineDiff(path: string, before: string, after: string): StructuredPatch | undefined {
  return diff().structuredPatch(path, path, before, after, undefined, undefined, {
    context: DIFF_CONTEXT_LINES,
    maxEditLength: DIFF_MAX_EDIT_LENGTH,
  });
}

/** `--- path` / `+++ path` headers and the given hunks, as text without a trailing newline. */
export function formatHunks(patch: StructuredPatch, hunks: Hunk[] = patch.hunks): string {
  return diff()
    .formatPatch({ ...patch, hunks }, diff().FILE_HEADERS_ONLY)
    .replace(/\n$/, "");
}

/** Added and removed line counts of a patch. */
export function countChanges(patch: StructuredPatch): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) added += 1;
      else if (line.startsWith("-")) removed += 1;
    }
  }
  return { added, removed };
}

/** "a one-line +X/−Y summary" (U+2212 minus sign, as the contract writes it). */
export function changeSummary(added: number, removed: number): string {
  return `+${added}/\u2212${removed} lines`;
}

/** Lines a patch prints: hunk headers plus their lines. */
export function patchLineCount(patch: StructuredPatch): number {
  return patch.hunks.reduce((sum, hunk) => sum + 1 + hunk.lines.length, 0);
}

/**
 * Added/removed line counts without a diff, for changes too large to diff: lines are compared
 * as multisets, which equals the diff's counts unless lines moved.
 */
export function multisetChanges(before: string, after: string): { added: number; removed: number } {
  const counts = new Map<string, number>();
  for (const line of splitLines(before)) counts.set(line, (counts.get(line) ?? 0) + 1);
  let added = 0;
  for (const line of splitLines(after)) {
    const left = counts.get(line) ?? 0;
    if (left > 0) counts.set(line, left - 1);
    else added += 1;
  }
  let removed = 0;
  for (const left of counts.values()) removed += left;
  return { added, removed };
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Lines in a file's text: a final line without a newline counts, an empty file has none. */
export function lineCount(text: string): number {
  return splitLines(text).length;
}
