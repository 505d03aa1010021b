import { closeSync, existsSync, openSync, readdirSync, readSync, rmdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseEnvelopeLine, type SessionMetaPayload } from "@penguin/protocol";
import { findSessionFileRefs, groupBySession, scanTraceFiles, type TraceLocation } from "./location.js";
import { assertSessionId, isValidSessionId } from "./session-id.js";

export interface SessionSummary {
  sessionId: string;
  /** Trace files in index order. */
  files: string[];
  /** The session_meta timestamp (ISO 8601); the first file's mtime when that record is unreadable. */
  created: string;
  /** The newest file's mtime (ISO 8601). */
  updated: string;
  provider?: string;
  modelId?: string;
  workspace?: string;
  agentId?: string;
  /** Set for child sessions (subagents, schedules). */
  source?: SessionMetaPayload["source"];
  parentSessionId?: string;
  /** Total size of the trace files. */
  bytes: number;
  /** Why the session_meta could not be read, when it could not. */
  problem?: string;
}

/** A session_meta holds the whole system prompt, so the first line can be long; stop somewhere. */
const MAX_FIRST_LINE_BYTES = 16 * 1024 * 1024;
const READ_CHUNK_BYTES = 64 * 1024;

/** Every session under `tracesDir`, newest first (by created time). Reads one line per session. */
export function listSessions(loc: TraceLocation): SessionSummary[] {
  const summaries: SessionSummary[] = [];
  for (const [sessionId, refs] of groupBySession(scanTraceFiles(loc))) {
    if (!isValidSessionId(sessionId)) continue;
    const files = refs.map((ref) => ref.path);
    let bytes = 0;
    let updatedMs = 0;
    for (const file of files) {
      const stat = statSync(file);
      bytes += stat.size;
      updatedMs = Math.max(updatedMs, stat.mtimeMs);
    }
    const summary: SessionSummary = {
      sessionId,
      files,
      created: statSync(files[0]).mtime.toISOString(),
      updated: new Date(updatedMs).toISOString(),
      bytes,
    };
    const first = readFirstLine(files[0]);
    const parsed = first === undefined ? undefined : parseEnvelopeLine(first);
    if (parsed?.ok && parsed.value.type === "session_meta") {
      const meta = parsed.value.payload;
      summary.created = parsed.value.timestamp;
      summary.provider = meta.provider;
      summary.modelId = meta.model_id;
      summary.workspace = meta.workspace;
      if (meta.agent_id !== undefined) summary.agentId = meta.agent_id;
      if (meta.source !== undefined) summary.source = meta.source;
      if (meta.parent_session_id !== undefined) summary.parentSessionId = meta.parent_session_id;
    } else if (parsed && !parsed.ok) {
      summary.problem = `first line is not a valid record: ${parsed.error.message}`;
    } else {
      summary.problem = parsed ? "first record is not session_meta" : "no complete first line";
    }
    summaries.push(summary);
  }
  return summaries.sort(
    (a, b) => Date.parse(b.created) - Date.parse(a.created) || a.sessionId.localeCompare(b.sessionId),
  );
}

function readFirstLine(path: string): string | undefined {
  const fd = openSync(path, "r");
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    while (total < MAX_FIRST_LINE_BYTES) {
      const chunk = Buffer.alloc(READ_CHUNK_BYTES);
      const read = readSync(fd, chunk, 0, chunk.length, total);
      if (read === 0) break;
      const newline = chunk.subarray(0, read).indexOf(0x0a);
      if (newline !== -1) {
        chunks.push(chunk.subarray(0, newline));
        return Buffer.concat(chunks).toString("utf8");
      }
      chunks.push(chunk.subarray(0, read));
      total += read;
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}

export interface DeleteResult {
  removedFiles: string[];
  removedScratchpad: boolean;
}

/**
 * Deletes a session: its trace files and `scratchpad/<id>/` (attachments, GOAL.yaml, archived
 * tool output). Day folders left empty are removed too. Deleting a session that has nothing left
 * is not an error (the result says nothing was removed). Child sessions of subagents are sessions
 * of their own and are not deleted with their parent.
 */
export function deleteSession(loc: TraceLocation, sessionId: string): DeleteResult {
  assertSessionId(sessionId);
  const refs = findSessionFileRefs(loc, sessionId);
  const removedFiles: string[] = [];
  for (const ref of refs) {
    rmSync(ref.path, { force: true });
    removedFiles.push(ref.path);
  }
  for (const dayDir of new Set(refs.map((ref) => dirname(ref.path)))) {
    if (existsSync(dayDir) && readdirSync(dayDir).length === 0) rmdirSync(dayDir);
  }
  const scratchpad = join(loc.scratchpadRoot, sessionId);
  const removedScratchpad = existsSync(scratchpad);
  if (removedScratchpad) rmSync(scratchpad, { recursive: true, force: true });
  return { removedFiles, removedScratchpad };
}
