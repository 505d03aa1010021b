import { closeSync, openSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isPartialMessage, type OmniMessage, parseEnvelopeLine } from "@penguin/protocol";
import { TraceError } from "./errors.js";
import {
  dayFolderName,
  findSessionFileRefs,
  findSessionFiles,
  type TraceLocation,
  traceFileName,
} from "./location.js";
import { ensurePrivateDir, PRIVATE_FILE_MODE } from "./private-fs.js";
import { scanTraceText, type TraceDiagnostic } from "./reader.js";
import { assertSessionId, isValidSessionId } from "./session-id.js";
import { writeAllSync, writePrivateFileAtomically } from "./write-all.js";

export interface ExportResult {
  /** Records written. */
  records: number;
  /** Lines of the trace that were skipped (torn or malformed), so the export imports cleanly. */
  diagnostics: TraceDiagnostic[];
}

export interface ExportText extends ExportResult {
  /** The export itself: every valid line of the trace files, each ending in a newline. */
  text: string;
}

/**
 * A session as the text of its export: every valid line of its trace files in order, byte for
 * byte (a torn or malformed line is left out and reported). `exportSession` writes this text to a
 * file; a server answers it as a download.
 */
export function exportSessionText(loc: TraceLocation, sessionId: string): ExportText {
  const files = findSessionFiles(loc, sessionId);
  if (files.length === 0) {
    throw new TraceError("session_not_found", `session ${sessionId} has no trace under ${loc.tracesDir}`);
  }
  const lines: string[] = [];
  const diagnostics: TraceDiagnostic[] = [];
  for (const file of files) {
    const found = scanTraceText(file, readFileSync(file, "utf8"), (_record, line) => {
      lines.push(line);
    });
    // A last record without its newline is exported whole; only skipped lines are worth reporting.
    diagnostics.push(...found.filter((d) => d.kind !== "missing_newline"));
  }
  return { text: lines.length > 0 ? `${lines.join("\n")}\n` : "", records: lines.length, diagnostics };
}

/**
 * Writes a session as one JSONL file (see `exportSessionText`). The file is created 0600 (its
 * folder 0700 when missing) next to the destination and renamed into place, so a reader never
 * sees half an export; an existing file at `destFile` is replaced.
 */
export function exportSession(loc: TraceLocation, sessionId: string, destFile: string): ExportResult {
  const { text, records, diagnostics } = exportSessionText(loc, sessionId);
  writePrivateFileAtomically(destFile, text);
  return { records, diagnostics };
}

export interface ImportOptions {
  /** Import under this id instead of the file's own (every session_meta is rewritten to it). */
  newSessionId?: string;
}

/**
 * Imports a session from one JSONL file (an export). Every line is validated before anything is
 * written; the first problem throws `invalid_import` naming the line. The file must start with a
 * session_meta, hold one session only, and hold no partials or child-session (origin) messages.
 * Each session_meta starts a new trace file (`_001`, `_002`, ...: one file per model context, as
 * exported) in the day folder of the first one's timestamp. Rejects (`session_exists`) an id that
 * already has a trace. Returns the session id.
 */
export function importSession(loc: TraceLocation, file: string, opts: ImportOptions = {}): string {
  return importSessionText(loc, readFileSync(file, "utf8"), file, opts);
}

/**
 * `importSession` of an export's text (an upload); `source` names it in error messages in place
 * of a file name.
 */
export function importSessionText(
  loc: TraceLocation,
  text: string,
  source: string,
  opts: ImportOptions = {},
): string {
  if (opts.newSessionId !== undefined) assertSessionId(opts.newSessionId);
  const parts = parseImport(source, text, opts.newSessionId);
  const sessionId = opts.newSessionId ?? parts.sessionId;
  if (findSessionFileRefs(loc, sessionId).length > 0) {
    throw new TraceError(
      "session_exists",
      `session ${sessionId} already exists; import it with a new session id`,
    );
  }
  ensurePrivateDir(loc.tracesDir);
  const dayDir = join(loc.tracesDir, parts.day);
  ensurePrivateDir(dayDir);
  const created: string[] = [];
  try {
    parts.files.forEach((lines, i) => {
      const path = join(dayDir, traceFileName(sessionId, i + 1));
      const fd = openSync(path, "wx", PRIVATE_FILE_MODE);
      created.push(path);
      try {
        writeAllSync(fd, `${lines.join("\n")}\n`, path);
      } finally {
        closeSync(fd);
      }
    });
  } catch (err) {
    for (const path of created) rmSync(path, { force: true });
    if ((err as NodeJS.ErrnoException).code === "EEXIST") {
      throw new TraceError("session_exists", `session ${sessionId} was created while importing it`);
    }
    throw err;
  }
  return sessionId;
}

interface ParsedImport {
  sessionId: string;
  day: string;
  /** The lines of each trace file to write. */
  files: string[][];
}

function parseImport(file: string, text: string, newSessionId: string | undefined): ParsedImport {
  const fail = (line: number, message: string): never => {
    throw new TraceError("invalid_import", `${file}:${line}: ${message}`);
  };
  const files: string[][] = [];
  let sessionId: string | undefined;
  let day: string | undefined;
  const rawLines = text.split("\n");
  for (let i = 0; i < rawLines.length; i++) {
    const line = rawLines[i];
    const lineNumber = i + 1;
    if (line.trim() === "") continue;
    const parsed = parseEnvelopeLine(line);
    if (!parsed.ok) {
      const where = parsed.error.path ? `${parsed.error.path}: ` : "";
      fail(lineNumber, `not a valid record: ${where}${parsed.error.message}`);
      continue;
    }
    const record = parsed.value as OmniMessage;
    if (sessionId === undefined && record.type !== "session_meta") {
      fail(lineNumber, `a session must start with a session_meta record, found ${record.type}`);
    }
    if (record.type === "session_meta") {
      const id = record.payload.session_id;
      if (sessionId === undefined) {
        if (newSessionId === undefined && !isValidSessionId(id)) {
          fail(
            lineNumber,
            `session id ${JSON.stringify(id)} cannot name a trace file; import it with a new session id`,
          );
        }
        sessionId = id;
        day = dayOf(record.timestamp);
      } else if (id !== sessionId) {
        fail(lineNumber, `session_meta of session ${id} inside session ${sessionId}: one session per file`);
      }
      files.push([newSessionId === undefined ? line : withSessionId(line, newSessionId)]);
      continue;
    }
    if (isPartialMessage(record))
      fail(lineNumber, `partial message ${record.payload.type}: traces hold complete messages only`);
    if (record.origin && record.origin.length > 0) {
      fail(lineNumber, "a child session's message (origin set): it belongs in the child's own trace");
    }
    files[files.length - 1].push(line);
  }
  if (sessionId === undefined || day === undefined)
    fail(1, "empty file: a session must start with a session_meta record");
  return { sessionId: sessionId as string, day: day as string, files };
}

function withSessionId(line: string, sessionId: string): string {
  const raw = JSON.parse(line) as { payload: Record<string, unknown> };
  return JSON.stringify({ ...raw, payload: { ...raw.payload, session_id: sessionId } });
}

/** The day folder for an imported session: the day its session_meta says it started (UTC). */
function dayOf(timestamp: string): string {
  const date = new Date(timestamp);
  return dayFolderName(Number.isNaN(date.getTime()) ? new Date() : date);
}
