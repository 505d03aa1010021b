import { closeSync, openSync, readSync } from "node:fs";
import type { OmniMessage, SessionMetaPayload, StopReason, TokenCounts } from "@penguin/protocol";

/** What `penguin sessions show` counts in a session's records. */
export interface SessionStats {
  records: number;
  /** The first session_meta (the session's start) and the latest one (its configuration now). */
  firstMeta?: { timestamp: string; payload: SessionMetaPayload };
  latestMeta?: SessionMetaPayload;
  userMessages: number;
  assistantMessages: number;
  toolCalls: number;
  toolOutputs: number;
  decisions: { allow: number; deny: number; forbidden: number };
  /** Model requests, and the attempts among them that failed (retried or not). */
  requests: number;
  failedRequests: number;
  compactions: number;
  tasks: number;
  /** The last task_end, unless user input came after it (a task then started and never ended). */
  lastStatus?: { status: StopReason | "unfinished"; message?: string; timestamp: string };
  tokens?: TokenCounts;
  costUsd?: number;
  subagents: string[];
}

export function sessionStats(records: readonly OmniMessage[]): SessionStats {
  const stats: SessionStats = {
    records: records.length,
    userMessages: 0,
    assistantMessages: 0,
    toolCalls: 0,
    toolOutputs: 0,
    decisions: { allow: 0, deny: 0, forbidden: 0 },
    requests: 0,
    failedRequests: 0,
    compactions: 0,
    tasks: 0,
    subagents: [],
  };
  for (const record of records) {
    if (record.type === "session_meta") {
      stats.firstMeta ??= { timestamp: record.timestamp, payload: record.payload };
      stats.latestMeta = record.payload;
      continue;
    }
    const p = record.payload;
    switch (p.type) {
      case "text":
        if (p.role === "assistant") stats.assistantMessages++;
        else {
          stats.userMessages++;
          if (stats.lastStatus && stats.lastStatus.status !== "unfinished") {
            stats.lastStatus = { status: "unfinished", timestamp: record.timestamp };
          }
        }
        break;
      case "tool_call":
        stats.toolCalls++;
        break;
      case "tool_call_output":
        stats.toolOutputs++;
        break;
      case "approval_decision":
        stats.decisions[p.decision]++;
        break;
      case "request_begin":
        stats.requests++;
        break;
      case "request_end":
        if (p.status !== "completed") stats.failedRequests++;
        break;
      case "compaction_end":
        stats.compactions++;
        break;
      case "token_usage":
        stats.tokens = p.session;
        if (p.session_cost_usd !== undefined) stats.costUsd = p.session_cost_usd;
        break;
      case "subagent":
        if (!stats.subagents.includes(p.session_id)) stats.subagents.push(p.session_id);
        break;
      case "task_end":
        stats.tasks++;
        stats.lastStatus = { status: p.status, message: p.message, timestamp: record.timestamp };
        break;
      default:
        break;
    }
  }
  if (!stats.lastStatus && stats.userMessages > 0 && records.length > 0) {
    stats.lastStatus = { status: "unfinished", timestamp: records[records.length - 1].timestamp };
  }
  return stats;
}

const CHUNK_BYTES = 256 * 1024;
const NEWLINE = 0x0a;

/**
 * The records of trace files, counted as their non-empty lines without parsing them (a listing
 * of many sessions stays fast). A torn or malformed line counts too; `sessions show` parses.
 */
export function countTraceLines(files: readonly string[]): number {
  let lines = 0;
  const buffer = Buffer.alloc(CHUNK_BYTES);
  for (const file of files) {
    const fd = openSync(file, "r");
    try {
      let previous = NEWLINE;
      for (;;) {
        const read = readSync(fd, buffer, 0, buffer.length, null);
        if (read === 0) break;
        for (let i = 0; i < read; i++) {
          const byte = buffer[i];
          // A line starts where a non-newline byte follows a newline (or the start of the file).
          if (byte !== NEWLINE && previous === NEWLINE) lines++;
          previous = byte;
        }
      }
    } finally {
      closeSync(fd);
    }
  }
  return lines;
}
