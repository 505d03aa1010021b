import { stat } from "node:fs/promises";
import type { OmniMessage } from "@penguin/protocol";
import type { ToolDefinitionConfig } from "@penguin/state";
import {
  DIFF_MAX_FILE_BYTES,
  EDIT_MAX_HUNKS,
  EDIT_MAX_LISTED_MATCHES,
  EDIT_NEAR_MATCH_MAX_LINES,
} from "../environment/limits.js";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../environment/types.js";
import { sha256Of } from "./extended/file-reads.js";
import { checkExistingFile, recordWrite } from "./extended/write-guard.js";
import {
  answer,
  booleanArgument,
  describeFsError,
  fail,
  fsErrorCode,
  pathArgument,
  resolveToolPath,
  shownPath,
  stringArgument,
} from "./file-tool-support.js";
import { missingPathHint } from "./path-hint.js";
import { readRegularFile, writeRegularFile } from "./regular-file.js";
import { changeSummary, formatHunks, type Hunk, lineDiff, multisetChanges } from "./unified-diff.js";

// "edit_file — the file must exist; old_string must occur exactly once (or set replace_all);
// success echoes "Replaced N occurrence(s)" plus a git-style unified diff of the changed regions
// (one hunk per site, nearby sites merged; replace_all storms are capped at a few hunks plus an
// "…and N more replacements" note)."

/** Start offsets of the non-overlapping occurrences of `needle`, left to right. */
function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) {
    found.push(at);
  }
  return found;
}

/** 1-based line numbers of the given (ascending) offsets. */
function lineNumbersAt(text: string, offsets: number[]): number[] {
  const lines: number[] = [];
  let line = 1;
  let scanned = 0;
  for (const offset of offsets) {
    for (let at = text.indexOf("\n", scanned); at !== -1 && at < offset; at = text.indexOf("\n", at + 1)) {
      line += 1;
      scanned = at + 1;
    }
    lines.push(line);
  }
  return lines;
}

/** Why old_string was not found, when the reason is one the model can fix directly. */
function nearMatchHint(content: string, oldString: string): string {
  if (content.includes("\r\n") && oldString.includes("\n") && !oldString.includes("\r\n")) {
    if (content.includes(oldString.replace(/\n/g, "\r\n"))) {
      return " The file uses CRLF line endings: write old_string with \\r\\n line breaks.";
    }
  }
  const wanted = oldString
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const lines = content.split("\n");
  if (wanted.length === 0 || lines.length > EDIT_NEAR_MATCH_MAX_LINES) return "";
  const trimmed = lines.map((line) => line.trim());
  for (let start = 0; start < trimmed.length; start += 1) {
    if (trimmed[start] !== wanted[0]) continue;
    let index = start;
    let matched = 0;
    while (index < trimmed.length && matched < wanted.length) {
      if (trimmed[index] === "") {
        index += 1;
        continue;
      }
      if (trimmed[index] !== wanted[matched]) break;
      matched += 1;
      index += 1;
    }
    if (matched === wanted.length) {
      return ` A match that differs only in whitespace or indentation starts at line ${start + 1}: read it with read_file and copy it exactly.`;
    }
  }
  return "";
}

function replaceAt(content: string, offsets: number[], oldLength: number, replacement: string): string {
  const pieces: string[] = [];
  let from = 0;
  for (const offset of offsets) {
    pieces.push(content.slice(from, offset), replacement);
    from = offset + oldLength;
  }
  pieces.push(content.slice(from));
  return pieces.join("");
}

/** Whether a hunk's range of new-file lines contains `line`. */
function hunkCovers(hunk: Hunk, line: number): boolean {
  const last = hunk.newStart + Math.max(hunk.newLines, 1) - 1;
  return line >= hunk.newStart && line <= last;
}

/** The diff of an edit, its hunks capped, with a note about the replacements left out. */
function editDiff(path: string, before: string, after: string, siteLines: number[]): string {
  if (Buffer.byteLength(before) > DIFF_MAX_FILE_BYTES || Buffer.byteLength(after) > DIFF_MAX_FILE_BYTES) {
    const { added, removed } = multisetChanges(before, after);
    return `(file too large to show a diff: ${changeSummary(added, removed)})`;
  }
  const patch = lineDiff(shownPath(path), before, after);
  if (!patch) {
    const { added, removed } = multisetChanges(before, after);
    return `(change too large to show a diff: ${changeSummary(added, removed)})`;
  }
  const shown = patch.hunks.slice(0, EDIT_MAX_HUNKS);
  let text = formatHunks(patch, shown);
  if (shown.length < patch.hunks.length) {
    const covered = siteLines.filter((line) => shown.some((hunk) => hunkCovers(hunk, line))).length;
    const more = siteLines.length - covered;
    text += `\n\u2026and ${more} more replacement${more === 1 ? "" : "s"}`;
  }
  return text;
}

export function createEditFileTool(definition: ToolDefinitionConfig): BuiltinTool {
  async function* execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    const path = pathArgument(args, "file_path", ctx.workspaceDir);
    if (!path.ok) return yield* fail(ctx, path.error);
    const oldString = stringArgument(args, "old_string");
    if (!oldString.ok) return yield* fail(ctx, oldString.error);
    const newString = stringArgument(args, "new_string");
    if (!newString.ok) return yield* fail(ctx, newString.error);
    const replaceAll = booleanArgument(args, "replace_all", false);
    if (!replaceAll.ok) return yield* fail(ctx, replaceAll.error);
    const shown = shownPath(path.value);

    if (oldString.value === "") {
      return yield* fail(
        ctx,
        "old_string is empty. To create a file or replace all of its content, use write_file.",
      );
    }
    if (oldString.value === newString.value) {
      return yield* fail(
        ctx,
        "new_string is identical to old_string, so there is nothing to change. No changes made.",
      );
    }

    let bytes: Buffer;
    try {
      const info = await stat(path.value);
      if (info.isDirectory()) return yield* fail(ctx, `${shown} is a directory, not a file.`);
      bytes = await readRegularFile(path.value);
    } catch (error) {
      if (fsErrorCode(error) === "ENOENT") {
        return yield* fail(
          ctx,
          `File not found: ${shown}. edit_file changes existing files; create new ones with write_file. ${await missingPathHint(path.value)}`,
        );
      }
      return yield* fail(ctx, describeFsError("read", path.value, error));
    }
    if (bytes.includes(0)) {
      return yield* fail(
        ctx,
        `${shown} looks like a binary file (it contains NUL bytes); edit_file edits text files only.`,
      );
    }
    // "editing … a file needs a read (or listing) of it earlier in the same task".
    if (ctx.fileReads) {
      const verdict = checkExistingFile(ctx.fileReads, path.value, {
        tool: "edit_file",
        action: "edit",
        currentSha256: sha256Of(bytes),
        needsExpected: false,
      });
      if (!verdict.ok) return yield* fail(ctx, verdict.message);
    }
    const content = bytes.toString("utf8");
    if (!Buffer.from(content, "utf8").equals(bytes)) {
      return yield* fail(
        ctx,
        `${shown} is not valid UTF-8 text; edit_file would corrupt its bytes. Change it with exec_command instead. No changes made.`,
      );
    }

    const found = occurrences(content, oldString.value);
    if (found.length === 0) {
      return yield* fail(
        ctx,
        `old_string was not found in ${shown}. No changes made. It must match the file exactly, whitespace and indentation included.${nearMatchHint(content, oldString.value)}`,
      );
    }
    if (found.length > 1 && !replaceAll.value) {
      const lines = lineNumbersAt(content, found.slice(0, EDIT_MAX_LISTED_MATCHES));
      const more = found.length > EDIT_MAX_LISTED_MATCHES ? ", …" : "";
      return yield* fail(
        ctx,
        `old_string occurs ${found.length} times in ${shown} (lines ${lines.join(", ")}${more}). No changes made. Include more surrounding text to make it unique, or set replace_all to true to replace every occurrence.`,
      );
    }

    const updated = replaceAt(content, found, oldString.value.length, newString.value);
    try {
      await writeRegularFile(path.value, updated);
    } catch (error) {
      return yield* fail(ctx, `${describeFsError("write", path.value, error)} No changes made.`);
    }
    // Where each replacement starts in the new text, to tell which ones the capped diff shows.
    const delta = newString.value.length - oldString.value.length;
    const siteLines = lineNumbersAt(
      updated,
      found.map((offset, index) => offset + index * delta),
    );
    const summary = `Replaced ${found.length} occurrence(s) in ${shown}`;
    const note = recordWrite(ctx, path.value, updated);
    return yield* answer(ctx, `${summary}\n${editDiff(path.value, content, updated, siteLines)}`, { note });
  }

  return {
    name: definition.name,
    definition,
    execute,
    lockKeys: (args, workspaceDir) =>
      typeof args.file_path === "string" ? [resolveToolPath(workspaceDir, args.file_path)] : [],
  };
}
