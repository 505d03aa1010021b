import { readFileSync } from "node:fs";
import { type OmniMessage, parseEnvelopeLine } from "@penguin/protocol";
import { TraceError } from "./errors.js";
import { findSessionFiles, type TraceLocation } from "./location.js";

/**
 * A line a reader skipped or had to repair, with enough detail to find it in the file.
 * - `malformed_line`: a line in the middle that is not a valid envelope; skipped.
 * - `torn_last_line`: the last line has no newline and is not a valid envelope (a write cut short
 *   by a crash); skipped. The next append starts on a fresh line, so the fragment stays behind
 *   as a `malformed_line` from then on.
 * - `missing_newline`: the last line is a complete, valid record that lacks only its newline; kept.
 */
export interface TraceDiagnostic {
  path: string;
  /** 1-based line number in the file. */
  line: number;
  kind: "malformed_line" | "torn_last_line" | "missing_newline";
  message: string;
}

export interface TraceFileContents {
  records: OmniMessage[];
  diagnostics: TraceDiagnostic[];
}

/** The longest excerpt of a bad line quoted in a diagnostic. */
const EXCERPT_CHARS = 80;

/**
 * Reads one trace file. Never throws on bad lines: they are skipped and reported as diagnostics
 * (a reader does not print; the caller decides whether to show them). It does throw when the file
 * cannot be read at all (missing, a folder, no permission).
 */
export function readTraceFile(path: string): TraceFileContents {
  const records: OmniMessage[] = [];
  const diagnostics = scanTraceText(path, readFileSync(path, "utf8"), (record) => {
    records.push(record);
  });
  return { records, diagnostics };
}

/**
 * Walks the lines of a trace's text: calls `onRecord` with each valid record and its exact line
 * text (without the newline), and returns the diagnostics of the lines it skipped or repaired.
 */
export function scanTraceText(
  path: string,
  text: string,
  onRecord: (record: OmniMessage, line: string) => void,
): TraceDiagnostic[] {
  const diagnostics: TraceDiagnostic[] = [];
  const endsWithNewline = text.length === 0 || text.endsWith("\n");
  let start = 0;
  let lineNumber = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    lineNumber++;
    const line = text.slice(start, end);
    const isLast = end === text.length;
    start = end + 1;
    if (line.trim() === "") continue;
    const parsed = parseEnvelopeLine(line);
    if (parsed.ok) {
      onRecord(parsed.value as OmniMessage, line);
      if (isLast && !endsWithNewline) {
        diagnostics.push({
          path,
          line: lineNumber,
          kind: "missing_newline",
          message: "the last record has no newline; it is kept, and the next append starts a new line",
        });
      }
      continue;
    }
    const where = parsed.error.path ? `${parsed.error.path}: ` : "";
    const detail = `${where}${parsed.error.message} (${excerpt(line)})`;
    if (isLast && !endsWithNewline) {
      diagnostics.push({
        path,
        line: lineNumber,
        kind: "torn_last_line",
        message: `torn last line skipped (a write cut short by a crash?): ${detail}`,
      });
    } else {
      diagnostics.push({
        path,
        line: lineNumber,
        kind: "malformed_line",
        message: `line skipped: ${detail}`,
      });
    }
  }
  return diagnostics;
}

function excerpt(line: string): string {
  const shown = line.length > EXCERPT_CHARS ? `${line.slice(0, EXCERPT_CHARS)}…` : line;
  return `${line.length} chars: ${JSON.stringify(shown)}`;
}

export interface SessionContents extends TraceFileContents {
  /** The session's trace files, in index order. */
  files: string[];
}

/** Reads every trace file of a session in order. Throws `session_not_found` when it has none. */
export function readSession(loc: TraceLocation, sessionId: string): SessionContents {
  const files = findSessionFiles(loc, sessionId);
  if (files.length === 0) {
    throw new TraceError("session_not_found", `session ${sessionId} has no trace under ${loc.tracesDir}`);
  }
  const records: OmniMessage[] = [];
  const diagnostics: TraceDiagnostic[] = [];
  for (const file of files) {
    const contents = readTraceFile(file);
    for (const record of contents.records) records.push(record);
    diagnostics.push(...contents.diagnostics);
  }
  return { files, records, diagnostics };
}

/**
 * Iterates a session's records file by file, holding one file in memory at a time. The session is
 * looked up when the iteration starts; diagnostics go to `onDiagnostic` when given.
 */
export function* iterateSession(
  loc: TraceLocation,
  sessionId: string,
  onDiagnostic?: (diagnostic: TraceDiagnostic) => void,
): Generator<OmniMessage, void, void> {
  const files = findSessionFiles(loc, sessionId);
  if (files.length === 0) {
    throw new TraceError("session_not_found", `session ${sessionId} has no trace under ${loc.tracesDir}`);
  }
  for (const file of files) {
    const contents = readTraceFile(file);
    if (onDiagnostic) for (const diagnostic of contents.diagnostics) onDiagnostic(diagnostic);
    yield* contents.records;
  }
}
