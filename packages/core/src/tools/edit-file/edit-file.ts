import { stat } from "node:fs/promises";
import type { ToolDefinitionConfig } from "@penguin/state";
import {
  DIFF_MAX_FILE_BYTES,
  EDIT_MAX_HUNKS,
  EDIT_MAX_LISTED_MATCHES,
  EDIT_NEAR_MATCH_MAX_LINES,
} from "../../environment/limits.js";
import type { BuiltinTool } from "../../environment/types.js";
import { answer, fail } from "../call-text.js";
import { checkpointPaths, recordFileEffects } from "../files/effects.js";
import { readForChange, writeForChange } from "../files/file-text.js";
import {
  booleanArg,
  describeFsError,
  executeWithArguments,
  fsErrorCode,
  pathArg,
  pathLockKeys,
  shownPath,
  stringArg,
} from "../files/file-tool-support.js";
import { sha256Of } from "../files/hashes.js";
import {
  BYTE_ORDER_MARK,
  fileText,
  type LineBreak,
  lineView,
  type TextFile,
  textFileOf,
  uniformLineBreak,
  withLineBreaks,
} from "../files/line-endings.js";
import { missingPathHint } from "../files/path-hint.js";
import { changeSummary, formatHunks, type Hunk, lineDiff, multisetChanges } from "../files/unified-diff.js";
import { checkExistingFile, recordWrite } from "../files/write-guard.js";
import { findSites, type Site } from "./edit-sites.js";

// "edit_file — the file must exist; old_string must occur exactly once (or set replace_all);
// success echoes "Replaced N occurrence(s)" plus a git-style unified diff of the changed regions
// (one hunk per site, nearby sites merged; replace_all storms are capped at a few hunks plus an
// "…and N more replacements" note)."
// "Exact" is as read_file shows the file: line breaks are matched as "\n" and written back in
// the file's own line ending, and a byte order mark is kept but never matched or shown.

/** 1-based line numbers of the given (ascending) offsets; `lineEnd` is the character that ends a line. */
function lineNumbersAt(text: string, offsets: number[], lineEnd: "\n" | "\r"): number[] {
  const lines: number[] = [];
  let line = 1;
  let scanned = 0;
  for (const offset of offsets) {
    for (
      let at = text.indexOf(lineEnd, scanned);
      at !== -1 && at < offset;
      at = text.indexOf(lineEnd, at + 1)
    ) {
      line += 1;
      scanned = at + 1;
    }
    lines.push(line);
  }
  return lines;
}

/** Why old_string was not found, when the reason is one the model can fix directly (both texts as the model sees them). */
function nearMatchHint(content: string, oldString: string): string {
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

/** The body with each site replaced; `replacements[i]` goes in place of `sites[i]`. */
function replaceSites(body: string, sites: Site[], replacements: string[]): string {
  const pieces: string[] = [];
  let from = 0;
  for (const [index, site] of sites.entries()) {
    pieces.push(body.slice(from, site.start), replacements[index]!);
    from = site.end;
  }
  pieces.push(body.slice(from));
  return pieces.join("");
}

/**
 * new_string in the line ending of the text it replaces, or the file's usual one when that text
 * has no line break (or several kinds): a model writes "\n" whatever the file uses.
 */
function replacementFor(file: TextFile, site: Site, newString: string): string {
  const local = uniformLineBreak(file.body.slice(site.start, site.end), file.crOnly);
  return withLineBreaks(newString, local ?? file.lineBreak, file.crOnly);
}

const LINE_BREAK_NAMES: Record<LineBreak, string> = { "\n": "LF", "\r\n": "CRLF", "\r": "CR" };

/** A leading byte order mark dropped, unless it is all there is. */
function withoutByteOrderMark(text: string): string {
  return text.startsWith(BYTE_ORDER_MARK) && text.length > BYTE_ORDER_MARK.length
    ? text.slice(BYTE_ORDER_MARK.length)
    : text;
}

/** Why an edit that differs from old_string only in what edit_file keeps as the file has it changes nothing. */
function unchangedByKeptEncoding(file: TextFile, shown: string): string {
  const lineEndings = LINE_BREAK_NAMES[file.lineBreak];
  if (!file.bom) {
    return `new_string differs from old_string only in line endings, and edit_file writes the file's own line endings (${lineEndings} in ${shown}), so nothing would change. No changes made. To change line endings, use write_file or exec_command.`;
  }
  return `new_string differs from old_string only in line endings or the byte order mark, and edit_file keeps both as the file has them (${lineEndings} line endings and a byte order mark in ${shown}), so nothing would change. No changes made. To change them, use write_file or exec_command.`;
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
  const execute = executeWithArguments(
    {
      path: pathArg("file_path"),
      oldString: stringArg("old_string"),
      newString: stringArg("new_string"),
      replaceAll: booleanArg("replace_all", false),
    },
    async function* ({ path, oldString, newString, replaceAll }, ctx) {
      const shown = shownPath(path);

      if (oldString === "") {
        return yield* fail(
          ctx,
          "old_string is empty. To create a file or replace all of its content, use write_file.",
        );
      }
      if (oldString === newString) {
        return yield* fail(
          ctx,
          "new_string is identical to old_string, so there is nothing to change. No changes made.",
        );
      }

      let bytes: Buffer;
      try {
        const info = await stat(path);
        if (info.isDirectory()) return yield* fail(ctx, `${shown} is a directory, not a file.`);
        bytes = await readForChange(ctx, path);
      } catch (error) {
        if (fsErrorCode(error) === "ENOENT") {
          return yield* fail(
            ctx,
            `File not found: ${shown}. edit_file changes existing files; create new ones with write_file. ${await missingPathHint(path)}`,
          );
        }
        return yield* fail(ctx, describeFsError("read", path, error));
      }
      if (bytes.includes(0)) {
        return yield* fail(
          ctx,
          `${shown} looks like a binary file (it contains NUL bytes); edit_file edits text files only.`,
        );
      }
      // "editing … a file needs a read (or listing) of it earlier in the same task".
      if (ctx.fileReads) {
        const verdict = checkExistingFile(ctx.fileReads, path, {
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

      const file = textFileOf(content);
      // read_file shows the byte order mark as the start of line 1, so a model may copy it.
      const oldText = file.bom ? withoutByteOrderMark(oldString) : oldString;
      const newText = file.bom ? withoutByteOrderMark(newString) : newString;
      const view = lineView(file.body, file.crOnly);
      const lineEnd = file.crOnly ? "\r" : "\n";
      const search = findSites(file, view, oldText, replaceAll);
      if (search.kind === "missing") {
        return yield* fail(
          ctx,
          `old_string was not found in ${shown}. No changes made. It must match the file exactly, whitespace and indentation included.${nearMatchHint(view.text, lineView(oldText, file.crOnly).text)}`,
        );
      }
      if (search.kind === "ambiguous") {
        const count = search.sites.length;
        const starts = search.sites.slice(0, EDIT_MAX_LISTED_MATCHES).map((site) => site.start);
        const lines = lineNumbersAt(file.body, starts, lineEnd);
        const more = count > EDIT_MAX_LISTED_MATCHES ? ", …" : "";
        const ignored = search.lineEndingsIgnored ? " once line endings are ignored" : "";
        return yield* fail(
          ctx,
          `old_string occurs ${count} times in ${shown} (lines ${lines.join(", ")}${more})${ignored}. No changes made. Include more surrounding text to make it unique, or set replace_all to true to replace every occurrence.`,
        );
      }

      const { sites } = search;
      const replacements = sites.map((site) => replacementFor(file, site, newText));
      const body = replaceSites(file.body, sites, replacements);
      if (body === file.body) return yield* fail(ctx, unchangedByKeptEncoding(file, shown));
      const updated = fileText(file, body);
      const saved = await checkpointPaths(ctx, [path]);
      if (!saved.ok) return yield* fail(ctx, saved.error);
      recordFileEffects(ctx, [{ path, before_sha256: sha256Of(bytes), after_sha256: sha256Of(updated) }]);
      try {
        await writeForChange(ctx, path, updated);
      } catch (error) {
        return yield* fail(ctx, `${describeFsError("write", path, error)} No changes made.`);
      }
      // Where each replacement starts in the new text, to tell which ones the capped diff shows.
      let shift = 0;
      const newStarts = sites.map((site, index) => {
        const start = site.start + shift;
        shift += replacements[index]!.length - (site.end - site.start);
        return start;
      });
      const siteLines = lineNumbersAt(body, newStarts, lineEnd);
      const summary = `Replaced ${sites.length} occurrence(s) in ${shown}`;
      const note = recordWrite(ctx, path, updated);
      // The diff shows both versions as read_file does: "\n" line breaks, no byte order mark.
      const diff = editDiff(path, view.text, lineView(body, file.crOnly).text, siteLines);
      return yield* answer(ctx, `${summary}\n${diff}`, { note });
    },
  );

  return {
    name: definition.name,
    definition,
    execute,
    lockKeys: pathLockKeys("file_path"),
  };
}
