import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { findSessionFileRefs, type TraceLocation, traceFileName } from "./location.js";
import type { TraceStreamRef } from "./mirror.js";
import { ensurePrivateDir, PRIVATE_FILE_MODE } from "./private-fs.js";
import { assertSessionId } from "./session-id.js";
import { writeAllSync, writePrivateFileAtomically } from "./write-all.js";

// A trace kept elsewhere as well (mirror.ts) is brought back into files here: on an instance that
// takes a session over, or that reads a session another instance runs. The files stay what every
// reader reads; this only makes them match the copy.

/** One trace file of a session as this machine has it: its complete records, counted. */
export interface LocalTraceStream extends TraceStreamRef {
  /** Its complete record lines (a torn last line, or a fragment a repair left behind, is not one). */
  lines: string[];
  /** How many: `lines.length`. */
  records: number;
}

/**
 * A line a writer wrote whole: a JSON object. A fragment of a torn write is a prefix of one, which
 * almost never ends with its closing brace; when it does, the file merely looks different from the
 * copy and is rewritten from it.
 */
function isWholeRecordLine(line: string): boolean {
  return line.startsWith("{") && line.endsWith("}");
}

/** The trace files of `sessionId` under `loc`, each with its count of complete records. */
export function localTraceStreams(loc: TraceLocation, sessionId: string): LocalTraceStream[] {
  return findSessionFileRefs(loc, sessionId).map((ref) => {
    const lines = readFileSync(ref.path, "utf8").split("\n");
    lines.pop(); // after the last newline: "" or a torn line
    const whole = lines.filter(isWholeRecordLine);
    return {
      sessionId,
      fileIndex: ref.index,
      day: ref.day,
      lines: whole,
      records: whole.length,
    };
  });
}

/**
 * Writes records of a copy into the trace file `ref` names (created 0600 in 0700 folders):
 * `append` adds them after the file's records, `replace` makes the file hold exactly `lines`
 * (written beside it and renamed over it, so no reader sees half a file).
 */
export function writeTraceCopy(
  loc: TraceLocation,
  ref: TraceStreamRef,
  lines: readonly string[],
  how: "append" | "replace",
): void {
  assertSessionId(ref.sessionId);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(ref.day)) throw new Error(`not a trace day folder: ${ref.day}`);
  if (!Number.isInteger(ref.fileIndex) || ref.fileIndex < 1) {
    throw new Error(`not a trace file index: ${ref.fileIndex}`);
  }
  ensurePrivateDir(loc.tracesDir);
  const dayDir = join(loc.tracesDir, ref.day);
  ensurePrivateDir(dayDir);
  const path = join(dayDir, traceFileName(ref.sessionId, ref.fileIndex));
  const text = lines.map((line) => `${line}\n`).join("");
  if (how === "replace") {
    writePrivateFileAtomically(path, text);
    return;
  }
  const fd = openSync(path, "a", PRIVATE_FILE_MODE);
  try {
    writeAllSync(fd, text, path);
  } finally {
    closeSync(fd);
  }
}
