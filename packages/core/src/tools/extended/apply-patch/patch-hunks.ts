import { fileText, lineBreakPattern, type TextFile, textFileOf } from "../../files/line-endings.js";
import type { PatchHunk } from "./patch-parser.js";

// Applies the hunks of one `*** Update File` to a file's text by exact matching: each hunk's
// context and removed lines must appear in the file, in order, after the previous hunk.
// Lines are compared as read_file shows them (without their line break or the byte order mark);
// each line keeps its own line break, so a patch changes only the lines it names.

export type HunkResult =
  | { ok: true; text: string; added: number; removed: number }
  | { ok: false; error: string };

/** A line of the file: its text and the line break that ends it ("" for a last line without one). */
interface FileLine {
  text: string;
  end: string;
}

function linesOf(file: TextFile): FileLine[] {
  const lines: FileLine[] = [];
  let from = 0;
  for (const match of file.body.matchAll(lineBreakPattern(file.crOnly))) {
    lines.push({ text: file.body.slice(from, match.index), end: match[0] });
    from = match.index + match[0].length;
  }
  if (from < file.body.length) lines.push({ text: file.body.slice(from), end: "" });
  return lines;
}

/**
 * The lines a hunk puts in place of the file lines it matched (`place`, its context and removed
 * lines in order): context lines stay as they are, line break included; added lines take the
 * line break of the lines the hunk removes when they agree, else the file's usual one.
 */
function rewrite(file: TextFile, place: FileLine[], hunk: PatchHunk): FileLine[] {
  const matched = hunk.lines.filter((line) => line.op !== "+");
  const removedEnds = new Set(
    place.filter((line, k) => matched[k]!.op === "-" && line.end !== "").map((line) => line.end),
  );
  const lineBreak = removedEnds.size === 1 ? [...removedEnds][0]! : file.lineBreak;
  const result: FileLine[] = [];
  let k = 0;
  for (const line of hunk.lines) {
    if (line.op === "+") result.push({ text: line.text, end: lineBreak });
    else if (line.op === "-") k += 1;
    else result.push(place[k++]!);
  }
  return result;
}

/** The first index >= `from` where `needle` occurs in `lines` (exactly), or -1. */
function seek(lines: FileLine[], needle: string[], from: number, atEnd: boolean): number {
  if (atEnd) {
    const start = lines.length - needle.length;
    if (start < from) return -1;
    return needle.every((line, k) => lines[start + k]!.text === line) ? start : -1;
  }
  for (let start = from; start + needle.length <= lines.length; start += 1) {
    if (needle.every((line, k) => lines[start + k]!.text === line)) return start;
  }
  return -1;
}

/** Where a whitespace-insensitive match of `needle` starts (1-based line), for the error hint. */
function looseMatch(lines: FileLine[], needle: string[], from: number): number | undefined {
  const squash = (line: string) => line.replace(/\s+/g, " ").trim();
  const wanted = needle.map(squash);
  for (let start = from; start + wanted.length <= lines.length; start += 1) {
    if (wanted.every((line, k) => squash(lines[start + k]!.text) === line)) return start + 1;
  }
  return undefined;
}

export function applyHunks(text: string, hunks: PatchHunk[], label: string): HunkResult {
  const file = textFileOf(text);
  const lines = linesOf(file);
  // The file keeps ending with a line break, or without one, whatever its last line becomes.
  const endsWithBreak = lines.length === 0 || lines[lines.length - 1]!.end !== "";
  let cursor = 0;
  let added = 0;
  let removed = 0;

  for (const [index, hunk] of hunks.entries()) {
    const where = `hunk ${index + 1} (patch line ${hunk.patchLine}) of ${label}`;
    if (hunk.anchor !== undefined) {
      const anchor = hunk.anchor;
      let found = -1;
      for (let at = cursor; at < lines.length; at += 1) {
        const line = lines[at]!.text;
        if (line === anchor || line.trim() === anchor.trim()) {
          found = at;
          break;
        }
      }
      if (found === -1) {
        return {
          ok: false,
          error: `${where}: the @@ line ${JSON.stringify(anchor)} was not found${cursor > 0 ? " after the previous hunk" : ""}.`,
        };
      }
      cursor = found + 1;
    }
    const before = hunk.lines.filter((line) => line.op !== "+").map((line) => line.text);
    const after = hunk.lines.filter((line) => line.op !== "-").map((line) => line.text);
    let start: number;
    if (before.length === 0) {
      // Pure addition: after the anchor, or at the end of the file.
      start = hunk.anchor !== undefined && !hunk.atEnd ? cursor : lines.length;
    } else {
      start = seek(lines, before, cursor, hunk.atEnd);
      if (start === -1) {
        const loose = looseMatch(lines, before, cursor);
        const hint =
          loose !== undefined
            ? ` Lines that differ only in whitespace start at line ${loose}: copy them exactly.`
            : "";
        return {
          ok: false,
          error: `${where}: its context and removed lines were not found${hunk.atEnd ? " at the end of the file" : ""}${cursor > 0 ? " after the previous hunk" : ""}. The first of them is ${JSON.stringify(before[0])}.${hint}`,
        };
      }
    }
    const replacement = rewrite(file, lines.slice(start, start + before.length), hunk);
    lines.splice(start, before.length, ...replacement);
    cursor = start + after.length;
    added += hunk.lines.filter((line) => line.op === "+").length;
    removed += hunk.lines.filter((line) => line.op === "-").length;
  }
  // A line that was last and is now followed by others needs a break; the new last line ends as the old one did.
  const body = lines
    .map((line, index) => {
      if (index < lines.length - 1) return `${line.text}${line.end || file.lineBreak}`;
      return endsWithBreak ? `${line.text}${line.end || file.lineBreak}` : line.text;
    })
    .join("");
  return { ok: true, text: fileText(file, body), added, removed };
}
