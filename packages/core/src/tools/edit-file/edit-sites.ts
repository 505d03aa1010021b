import { type LineView, lineView, type TextFile } from "../files/line-endings.js";

// Where edit_file's old_string matches. The model sees a file as read_file shows it, every line
// break a "\n", so old_string is matched against that view: "a\nb" finds "a\r\nb" in a CRLF file
// and "a\rb" in a lone-CR one. Matches are counted in the view too, because two places that look
// the same there are the same to the model, whatever their bytes.

/** A match, as offsets into the file's body (after its byte order mark). */
export interface Site {
  start: number;
  end: number;
}

export type SiteSearch =
  | { kind: "found"; sites: Site[] }
  | { kind: "missing" }
  /** Several matches and no replace_all; `lineEndingsIgnored` when some match only with line breaks normalized. */
  | { kind: "ambiguous"; sites: Site[]; lineEndingsIgnored: boolean };

/** Start offsets of the non-overlapping occurrences of `needle`, left to right. */
function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) {
    found.push(at);
  }
  return found;
}

function exactSites(body: string, needle: string): Site[] {
  return occurrences(body, needle).map((start) => ({ start, end: start + needle.length }));
}

function viewSites(view: LineView, needle: string): Site[] {
  return occurrences(view.text, needle).map((at) => ({
    start: view.rawOffset(at),
    end: view.rawOffset(at + needle.length),
  }));
}

export function findSites(
  file: TextFile,
  view: LineView,
  oldString: string,
  replaceAll: boolean,
): SiteSearch {
  const exact = exactSites(file.body, oldString);
  // Without any "\r" on either side the view is the file itself.
  if (!file.body.includes("\r") && !oldString.includes("\r")) return decide(exact, replaceAll, false);
  const seen = viewSites(view, lineView(oldString, file.crOnly).text);
  if (seen.length === 0) {
    // Only a byte match that splits a "\r\n" pair ("a\r" of "a\r\n") has no view match.
    return decide(exact, replaceAll, false);
  }
  if (seen.length > 1 && !replaceAll && exact.length === 1 && oldString.includes("\r")) {
    // The model spelled the line endings out, so its one byte-exact match is the one it means.
    return { kind: "found", sites: exact };
  }
  return decide(seen, replaceAll, exact.length !== seen.length);
}

/** "old_string must occur exactly once (or set replace_all)". */
function decide(sites: Site[], replaceAll: boolean, lineEndingsIgnored: boolean): SiteSearch {
  if (sites.length === 0) return { kind: "missing" };
  if (sites.length > 1 && !replaceAll) return { kind: "ambiguous", sites, lineEndingsIgnored };
  return { kind: "found", sites };
}
