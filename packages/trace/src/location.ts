import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { assertSessionId } from "./session-id.js";

/**
 * Where traces and scratchpads live. Callers pass them in (from `@penguin/state`'s data paths:
 * `<root>/traces` and `<root>/scratchpad`) so this package never decides the data root itself.
 */
export interface TraceLocation {
  tracesDir: string;
  scratchpadRoot: string;
}

/** "traces at `<root>/traces/<yyyy-mm-dd>/<sessionId>_<NNN>.jsonl`": NNN is 1-based, 3 digits at least. */
export const TRACE_INDEX_DIGITS = 3;
export const TRACE_FILE_EXTENSION = ".jsonl";

const DAY_FOLDER = /^\d{4}-\d{2}-\d{2}$/;
// Greedy `(.+)` takes the last `_<digits>`, so ids that contain `_` split correctly.
const TRACE_FILE_NAME = /^(.+)_(\d{3,})\.jsonl$/;

/** The day folder of a session, in UTC like every timestamp in a trace. */
export function dayFolderName(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new TypeError("invalid date for the trace day folder");
  return date.toISOString().slice(0, 10);
}

export function traceFileName(sessionId: string, index: number): string {
  return `${sessionId}_${String(index).padStart(TRACE_INDEX_DIGITS, "0")}${TRACE_FILE_EXTENSION}`;
}

export interface TraceFileRef {
  sessionId: string;
  index: number;
  day: string;
  path: string;
}

/** Every trace file under `tracesDir`, in no particular order. */
export function scanTraceFiles(loc: TraceLocation): TraceFileRef[] {
  return scan(loc, () => true);
}

/**
 * Walks `<tracesDir>/<yyyy-mm-dd>/` folders for files named `<id>_<NNN>.jsonl`. `wanted` sees the
 * raw file name first, so a lookup of one session skips the regex for every other file.
 */
function scan(loc: TraceLocation, wanted: (name: string) => boolean): TraceFileRef[] {
  if (!existsSync(loc.tracesDir)) return [];
  const refs: TraceFileRef[] = [];
  for (const day of readdirSync(loc.tracesDir)) {
    if (!DAY_FOLDER.test(day)) continue;
    const dayDir = join(loc.tracesDir, day);
    let names: string[];
    try {
      names = readdirSync(dayDir);
    } catch {
      continue; // a stray file named like a day
    }
    for (const name of names) {
      if (!wanted(name)) continue;
      const match = TRACE_FILE_NAME.exec(name);
      if (match) refs.push({ sessionId: match[1], index: Number(match[2]), day, path: join(dayDir, name) });
    }
  }
  return refs;
}

function sessionFileRefs(loc: TraceLocation, sessionId: string): TraceFileRef[] {
  assertSessionId(sessionId);
  const prefix = `${sessionId}_`;
  return scan(loc, (name) => name.startsWith(prefix))
    .filter((ref) => ref.sessionId === sessionId)
    .sort(compareRefs);
}

function compareRefs(a: TraceFileRef, b: TraceFileRef): number {
  return a.index - b.index || a.day.localeCompare(b.day);
}

/** The trace files of a session, in index order (`_001`, `_002`, ...); empty when it has none. */
export function findSessionFiles(loc: TraceLocation, sessionId: string): string[] {
  return sessionFileRefs(loc, sessionId).map((ref) => ref.path);
}

/** Like `findSessionFiles`, with the parsed day and index of each file. */
export function findSessionFileRefs(loc: TraceLocation, sessionId: string): TraceFileRef[] {
  return sessionFileRefs(loc, sessionId);
}

export function groupBySession(refs: TraceFileRef[]): Map<string, TraceFileRef[]> {
  const groups = new Map<string, TraceFileRef[]>();
  for (const ref of refs) {
    const group = groups.get(ref.sessionId);
    if (group) group.push(ref);
    else groups.set(ref.sessionId, [ref]);
  }
  for (const group of groups.values()) group.sort(compareRefs);
  return groups;
}
