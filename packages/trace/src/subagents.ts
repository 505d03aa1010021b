import type { SessionMetaPayload } from "@penguin/protocol";
import { TraceError } from "./errors.js";
import { findSessionFiles, type TraceLocation } from "./location.js";
import { readTraceFile, type TraceDiagnostic } from "./reader.js";
import { assertSessionId, isValidSessionId } from "./session-id.js";

/** A session and the child sessions its trace points to through `subagent` events. */
export interface SubagentNode {
  sessionId: string;
  /** The session's trace files; empty when the pointed-to trace is missing. */
  files: string[];
  /** The first session_meta of the trace, when it has one. */
  meta?: SessionMetaPayload;
  /** From the parent's pointer event. */
  subagentId?: string;
  toolCallId?: string;
  children: SubagentNode[];
  /**
   * Why the node could not be followed: `missing` (no trace, e.g. deleted), `invalid_id` (the
   * pointer names something that is not a session id), `cycle` (already on this branch).
   */
  problem?: "missing" | "invalid_id" | "cycle";
  diagnostics: TraceDiagnostic[];
}

/**
 * The tree of sessions below `sessionId`, following `subagent` pointer events recursively (in the
 * order the pointers appear; a child pointed to twice appears once). Broken pointers in a trace
 * are reported on their node, never thrown; an invalid or unknown root id throws.
 */
export function subagentTree(loc: TraceLocation, sessionId: string): SubagentNode {
  assertSessionId(sessionId);
  if (findSessionFiles(loc, sessionId).length === 0) {
    throw new TraceError("session_not_found", `session ${sessionId} has no trace under ${loc.tracesDir}`);
  }
  return visit(loc, sessionId, new Set(), {});
}

function visit(
  loc: TraceLocation,
  sessionId: string,
  branch: Set<string>,
  pointer: { subagentId?: string; toolCallId?: string },
): SubagentNode {
  const node: SubagentNode = { sessionId, files: [], children: [], diagnostics: [], ...pointer };
  if (!isValidSessionId(sessionId)) {
    node.problem = "invalid_id";
    return node;
  }
  if (branch.has(sessionId)) {
    node.problem = "cycle";
    return node;
  }
  node.files = findSessionFiles(loc, sessionId);
  if (node.files.length === 0) {
    node.problem = "missing";
    return node;
  }
  const seen = new Set<string>();
  const nextBranch = new Set(branch).add(sessionId);
  for (const file of node.files) {
    const { records, diagnostics } = readTraceFile(file);
    node.diagnostics.push(...diagnostics);
    for (const record of records) {
      if (record.origin && record.origin.length > 0) continue;
      if (record.type === "session_meta") {
        node.meta ??= record.payload;
        continue;
      }
      if (record.type !== "event_msg" || record.payload.type !== "subagent") continue;
      const child = record.payload;
      if (seen.has(child.session_id)) continue;
      seen.add(child.session_id);
      const childPointer: { subagentId?: string; toolCallId?: string } = {};
      if (child.subagent_id !== undefined) childPointer.subagentId = child.subagent_id;
      if (child.tool_call_id !== undefined) childPointer.toolCallId = child.tool_call_id;
      node.children.push(visit(loc, child.session_id, nextBranch, childPointer));
    }
  }
  return node;
}
