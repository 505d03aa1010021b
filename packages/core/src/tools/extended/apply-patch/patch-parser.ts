// The `*** Begin Patch` envelope of apply_patch ("one exact-match patch across several files …
// with add, update, delete and move actions"):
//
//   *** Begin Patch
//   *** Add File: <path>          then the new file's lines, each starting with "+"
//   *** Update File: <path>       optionally followed by "*** Move to: <path>", then hunks:
//   @@ [a line above the change]  each hunk: " " context, "-" removed and "+" added lines,
//                                 optionally ended by "*** End of File" (anchors it at the end)
//   *** Delete File: <path>
//   *** End Patch
//
// Every `***` line may be indented with spaces or tabs, as models write them.

export interface HunkLine {
  op: " " | "-" | "+";
  text: string;
}

export interface PatchHunk {
  /** The text after `@@`, a line that must come before the change; absent for a bare `@@`. */
  anchor?: string;
  lines: HunkLine[];
  /** `*** End of File`: the hunk's old lines end the file. */
  atEnd: boolean;
  /** 1-based line of the hunk in the patch, for messages. */
  patchLine: number;
}

export type PatchOperation =
  | { kind: "add"; path: string; content: string; patchLine: number }
  | { kind: "delete"; path: string; patchLine: number }
  | { kind: "update"; path: string; moveTo?: string; hunks: PatchHunk[]; patchLine: number };

export type ParsedPatch = { ok: true; operations: PatchOperation[] } | { ok: false; error: string };

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const ADD = "*** Add File: ";
const UPDATE = "*** Update File: ";
const DELETE = "*** Delete File: ";
const MOVE = "*** Move to: ";
const END_OF_FILE = "*** End of File";

/** The envelope and header lines a patch can hold, besides its first line. */
type Marker =
  | { kind: "add" | "update" | "delete" | "move"; path: string }
  | { kind: "end-patch" | "end-of-file" };

const PATH_MARKERS = [
  { prefix: ADD, kind: "add" },
  { prefix: UPDATE, kind: "update" },
  { prefix: DELETE, kind: "delete" },
  { prefix: MOVE, kind: "move" },
] as const;

/**
 * The marker a line is, read after its leading whitespace: models indent headers with spaces or
 * tabs (a patch quoted in a list, a tab before a header), and a header-like line must never be
 * taken for a context line of the hunk above it. Only the known markers count, so a context line
 * such as " ***" (a Markdown rule) stays text.
 */
function markerOf(line: string): Marker | undefined {
  const text = line.trim();
  if (text === END) return { kind: "end-patch" };
  if (text === END_OF_FILE) return { kind: "end-of-file" };
  // The header's trailing space may have been trimmed with an empty path ("*** Add File:").
  const padded = `${text} `;
  for (const { prefix, kind } of PATH_MARKERS) {
    if (padded.startsWith(prefix)) return { kind, path: padded.slice(prefix.length).trim() };
  }
  return undefined;
}

/** Whether a line starts the next file's section (or ends the patch), closing the current one. */
function endsSection(marker: Marker | undefined): boolean {
  return marker !== undefined && marker.kind !== "move" && marker.kind !== "end-of-file";
}

export function parsePatch(text: string): ParsedPatch {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  // Blank lines around the envelope are tolerated; nothing else is.
  let first = 0;
  while (first < lines.length && lines[first]!.trim() === "") first += 1;
  let last = lines.length - 1;
  while (last >= first && lines[last]!.trim() === "") last -= 1;
  if (first > last || lines[first]!.trim() !== BEGIN) {
    return { ok: false, error: `The patch must start with the line "${BEGIN}".` };
  }
  if (lines[last]!.trim() !== END) return { ok: false, error: `The patch must end with the line "${END}".` };

  const operations: PatchOperation[] = [];
  const error = (at: number, message: string): ParsedPatch => ({
    ok: false,
    error: `Patch line ${at + 1}: ${message}`,
  });
  // A marker out of its place is an error, never text of a hunk or of an added file.
  const misplaced = (at: number, marker: Marker): ParsedPatch => {
    if (marker.kind === "move") return error(at, `"${MOVE}" must come right after an "${UPDATE}" line.`);
    if (marker.kind === "end-of-file") return error(at, `"${END_OF_FILE}" must end a hunk.`);
    return error(at, `"${END}" must be the last line of the patch.`);
  };
  let i = first + 1;
  while (i < last) {
    const line = lines[i]!;
    if (line.trim() === "") {
      i += 1;
      continue;
    }
    const header = i;
    const marker = markerOf(line);
    if (marker?.kind === "add") {
      const path = marker.path;
      if (path === "") return error(i, "Add File needs a path.");
      const body: string[] = [];
      i += 1;
      while (i < last) {
        const bodyLine = lines[i]!;
        const inner = markerOf(bodyLine);
        if (endsSection(inner)) break;
        if (inner) return misplaced(i, inner);
        if (!bodyLine.startsWith("+")) {
          return error(
            i,
            `every line of an added file starts with "+" (in Add File: ${path}); got ${JSON.stringify(bodyLine)}.`,
          );
        }
        body.push(bodyLine.slice(1));
        i += 1;
      }
      operations.push({
        kind: "add",
        path,
        content: body.length > 0 ? `${body.join("\n")}\n` : "",
        patchLine: header + 1,
      });
      continue;
    }
    if (marker?.kind === "delete") {
      const path = marker.path;
      if (path === "") return error(i, "Delete File needs a path.");
      operations.push({ kind: "delete", path, patchLine: header + 1 });
      i += 1;
      continue;
    }
    if (marker?.kind === "update") {
      const path = marker.path;
      if (path === "") return error(i, "Update File needs a path.");
      i += 1;
      let moveTo: string | undefined;
      const move = i < last ? markerOf(lines[i]!) : undefined;
      if (move?.kind === "move") {
        moveTo = move.path;
        if (moveTo === "") return error(i, "Move to needs a path.");
        i += 1;
      }
      const hunks: PatchHunk[] = [];
      let current: PatchHunk | undefined;
      while (i < last) {
        const hunkLine = lines[i]!;
        const inner = markerOf(hunkLine);
        if (endsSection(inner)) break;
        if (inner?.kind === "end-of-file") {
          if (!current) return error(i, `"${END_OF_FILE}" must end a hunk (in Update File: ${path}).`);
          current.atEnd = true;
        } else if (inner) {
          return misplaced(i, inner);
        } else if (hunkLine.startsWith("@@")) {
          const anchor = hunkLine.slice(2).trim();
          current = { anchor: anchor === "" ? undefined : anchor, lines: [], atEnd: false, patchLine: i + 1 };
          hunks.push(current);
        } else {
          const op = hunkLine[0];
          // An empty line inside a hunk is an empty context line whose leading space was lost.
          const entry: HunkLine | undefined =
            hunkLine === ""
              ? { op: " ", text: "" }
              : op === " " || op === "-" || op === "+"
                ? { op, text: hunkLine.slice(1) }
                : undefined;
          if (!entry) {
            return error(
              i,
              `a hunk line starts with " ", "-" or "+" (in Update File: ${path}); got ${JSON.stringify(hunkLine)}.`,
            );
          }
          if (!current) {
            // The first hunk may leave out its "@@" line.
            current = { lines: [], atEnd: false, patchLine: i + 1 };
            hunks.push(current);
          }
          current.lines.push(entry);
        }
        i += 1;
      }
      for (const hunk of hunks) {
        if (!hunk.lines.some((entry) => entry.op !== " ")) {
          return error(
            hunk.patchLine - 1,
            `a hunk changes nothing (in Update File: ${path}): it needs "-" or "+" lines.`,
          );
        }
      }
      if (hunks.length === 0 && moveTo === undefined) {
        return error(header, `Update File: ${path} has no hunks and no Move to; there is nothing to do.`);
      }
      operations.push({ kind: "update", path, moveTo, hunks, patchLine: header + 1 });
      continue;
    }
    if (marker) return misplaced(i, marker);
    return error(i, `expected "${ADD}", "${UPDATE}", "${DELETE}" or "${END}", got ${JSON.stringify(line)}.`);
  }
  if (operations.length === 0) return { ok: false, error: "The patch is empty: it changes no file." };
  return { ok: true, operations };
}
