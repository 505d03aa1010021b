import type { OmniMessage, SessionMetaPayload, ToolSpec } from "@penguin/protocol";
import { isValidSessionId, readSession, TraceError, type TraceLocation } from "@penguin/trace";
import type { SessionRule } from "../approval/session-rules.js";
import { SetupError } from "./setup-error.js";

// What a resumed session takes back from its trace besides the conversation: the session rules
// granted, the tool list and session_meta last recorded.

/** The records of a session to resume; an invalid or unknown id is a SetupError saying so. */
export function readRecordedSession(
  location: TraceLocation,
  dataRoot: string,
  sessionId: string,
): OmniMessage[] {
  if (!isValidSessionId(sessionId)) {
    throw new SetupError(`"${sessionId}" is not a session id (letters, digits, - and _ only)`, "session");
  }
  try {
    return readSession(location, sessionId).records;
  } catch (err) {
    if (err instanceof TraceError && err.code === "session_not_found") {
      throw new SetupError(
        `no session ${sessionId} in ${dataRoot} (penguin sessions list shows them)`,
        "session",
      );
    }
    throw err;
  }
}

/**
 * Session rules a human granted, as recorded on their approval_decision events. Only an allow
 * grants a rule (the gate records none with a deny), so a rule on any other decision is not
 * taken: a resumed session never allows more than was granted. `SessionRules.add` then refuses
 * a prefix that is not one plain command.
 */
export function grantedRules(records: readonly OmniMessage[]): SessionRule[] {
  const rules: SessionRule[] = [];
  for (const record of records) {
    if (record.type !== "event_msg" || record.payload.type !== "approval_decision") continue;
    if (record.payload.decision !== "allow") continue;
    const rule = (record.payload as { session_rule?: unknown }).session_rule;
    if (rule && typeof rule === "object") {
      const r = rule as Partial<Record<"tool" | "commandPrefix", unknown>>;
      if (typeof r.tool === "string") rules.push({ tool: r.tool });
      else if (typeof r.commandPrefix === "string") rules.push({ commandPrefix: r.commandPrefix });
    }
  }
  return rules;
}

export function lastToolList(records: readonly OmniMessage[]): ToolSpec[] | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i];
    if (record.type === "event_msg" && record.payload.type === "tool_list_ready") return record.payload.tools;
  }
  return undefined;
}

/** The last session_meta of a session's records (each trace file starts with one). */
export function latestSessionMeta(
  records: readonly OmniMessage[],
): OmniMessage<SessionMetaPayload> | undefined {
  let meta: OmniMessage<SessionMetaPayload> | undefined;
  for (const record of records) {
    if (record.type === "session_meta") meta = record as OmniMessage<SessionMetaPayload>;
  }
  return meta;
}
