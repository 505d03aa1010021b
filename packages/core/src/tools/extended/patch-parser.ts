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

function isFileHeader(line: string): boolean {
  return line.startsWith(ADD) || line.startsWith(UPDATE) || line.startsWith(DELETE) || line === END;
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
  let i = first + 1;
  while (i < last) {
    const line = lines[i]!;
    if (line.trim() === "") {
      i += 1;
      continue;
    }
    const header = i;
    if (line.startsWith(ADD)) {
      const path = line.slice(ADD.length).trim();
      if (path === "") return error(i, "Add File needs a path.");
      const body: string[] = [];
      i += 1;
      while (i < last && !isFileHeader(lines[i]!)) {
        const bodyLine = lines[i]!;
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
    if (line.startsWith(DELETE)) {
      const path = line.slice(DELETE.length).trim();
      if (path === "") return error(i, "Delete File needs a path.");
      operations.push({ kind: "delete", path, patchLine: header + 1 });
      i += 1;
      continue;
    }
    if (line.startsWith(UPDATE)) {
      const path = line.slice(UPDATE.length).trim();
      if (path === "") return error(i, "Update File needs a path.");
      i += 1;
      let moveTo: string | undefined;
      if (i < last && lines[i]!.startsWith(MOVE)) {
        moveTo = lines[i]!.slice(MOVE.length).trim();
        if (moveTo === "") return error(i, "Move to needs a path.");
        i += 1;
      }
      const hunks: PatchHunk[] = [];
      let current: PatchHunk | undefined;
      while (i < last && !isFileHeader(lines[i]!)) {
        const hunkLine = lines[i]!;
        if (hunkLine.startsWith("@@")) {
          const anchor = hunkLine.slice(2).trim();
          current = { anchor: anchor === "" ? undefined : anchor, lines: [], atEnd: false, patchLine: i + 1 };
          hunks.push(current);
        } else if (hunkLine === END_OF_FILE) {
          if (!current) return error(i, `"${END_OF_FILE}" must end a hunk (in Update File: ${path}).`);
          current.atEnd = true;
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
    return error(i, `expected "${ADD}", "${UPDATE}", "${DELETE}" or "${END}", got ${JSON.stringify(line)}.`);
  }
  if (operations.length === 0) return { ok: false, error: "The patch is empty: it changes no file." };
  return { ok: true, operations };
}
