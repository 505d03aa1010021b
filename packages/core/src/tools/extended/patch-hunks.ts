import type { PatchHunk } from "./patch-parser.js";

// Applies the hunks of one `*** Update File` to a file's text by exact matching: each hunk's
// context and removed lines must appear in the file, in order, after the previous hunk.

export type HunkResult =
  | { ok: true; text: string; added: number; removed: number }
  | { ok: false; error: string };

/** The first index >= `from` where `needle` occurs in `lines` (exactly), or -1. */
function seek(lines: string[], needle: string[], from: number, atEnd: boolean): number {
  if (atEnd) {
    const start = lines.length - needle.length;
    if (start < from) return -1;
    return needle.every((line, k) => lines[start + k] === line) ? start : -1;
  }
  for (let start = from; start + needle.length <= lines.length; start += 1) {
    if (needle.every((line, k) => lines[start + k] === line)) return start;
  }
  return -1;
}

/** Where a whitespace-insensitive match of `needle` starts (1-based line), for the error hint. */
function looseMatch(lines: string[], needle: string[], from: number): number | undefined {
  const squash = (line: string) => line.replace(/\s+/g, " ").trim();
  const wanted = needle.map(squash);
  for (let start = from; start + wanted.length <= lines.length; start += 1) {
    if (wanted.every((line, k) => squash(lines[start + k]!) === line)) return start + 1;
  }
  return undefined;
}

export function applyHunks(text: string, hunks: PatchHunk[], label: string): HunkResult {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const endsWithEol = text === "" || text.endsWith("\n");
  const lines =
    text === "" ? [] : text.split("\n").map((line) => (eol === "\r\n" ? line.replace(/\r$/, "") : line));
  if (endsWithEol && lines.length > 0) lines.pop();
  let cursor = 0;
  let added = 0;
  let removed = 0;

  for (const [index, hunk] of hunks.entries()) {
    const where = `hunk ${index + 1} (patch line ${hunk.patchLine}) of ${label}`;
    if (hunk.anchor !== undefined) {
      const anchor = hunk.anchor;
      let found = -1;
      for (let at = cursor; at < lines.length; at += 1) {
        if (lines[at] === anchor || lines[at]!.trim() === anchor.trim()) {
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
    lines.splice(start, before.length, ...after);
    cursor = start + after.length;
    added += hunk.lines.filter((line) => line.op === "+").length;
    removed += hunk.lines.filter((line) => line.op === "-").length;
  }
  const body = lines.join(eol);
  return {
    ok: true,
    text: lines.length > 0 && endsWithEol ? `${body}${eol}` : lines.length > 0 ? body : "",
    added,
    removed,
  };
}
