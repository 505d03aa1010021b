import type { OmniMessage } from "@penguin/protocol";
import { ROOT_AGENT_RUN_ID } from "@penguin/state";
import type { AgentMessage } from "../tools/messaging/index.js";
import { reportEnd, type SubagentManager, type SubagentPointer } from "../tools/subagent/index.js";

// What a resumed session reads back of its agent tree ("Resume rebuilds inboxes and the set of
// children (a child that was running when the process died is shown as interrupted, not silently
// lost)"): the children its trace points to and, through each launched child's own trace, theirs;
// and the messages sent to the root that it never read.

/** The event fields of a trace this module reads (each trace's own records: no `origin`). */
interface PointerFields {
  session_id: string;
  subagent_id?: string;
}
interface LaunchFields {
  agent_run_id: string;
  agent?: string;
}
interface MessageFields {
  message_id: string;
  from: string;
  to: string;
  text: string;
  sent_at: string;
}

/** The trace's own events of one type (a parent's trace also holds its children's, with an origin). */
function ownEvents<T>(records: readonly OmniMessage[], type: string): T[] {
  return records
    .filter((record) => record.origin === undefined || record.origin.length === 0)
    .filter((record) => record.type === "event_msg" && record.payload.type === type)
    .map((record) => record.payload as T);
}

/**
 * The `subagent` pointer events of one agent's trace, in order (the first pointer of an id wins),
 * placed below `owner`: a pointer whose child the same trace records as launched (`agent_launched`)
 * is a launch_agent child, with its named agent.
 */
export function subagentPointers(
  records: readonly OmniMessage[],
  owner: string = ROOT_AGENT_RUN_ID,
  ownerDepth = 0,
): SubagentPointer[] {
  const launches = new Map(
    ownEvents<LaunchFields>(records, "agent_launched").map((l) => [l.agent_run_id, l]),
  );
  const pointers: SubagentPointer[] = [];
  const seen = new Set<string>();
  for (const { session_id: sessionId, subagent_id: subagentId } of ownEvents<PointerFields>(
    records,
    "subagent",
  )) {
    if (subagentId === undefined || seen.has(subagentId)) continue;
    seen.add(subagentId);
    const launch = launches.get(subagentId);
    const placement: NonNullable<SubagentPointer["placement"]> = {
      parent: owner,
      depth: ownerDepth + 1,
      launched: launch !== undefined,
    };
    if (launch?.agent !== undefined) placement.agent = launch.agent;
    pointers.push({ subagentId, sessionId, placement });
  }
  return pointers;
}

/**
 * The whole tree below the root: the root's pointers, then what each launched child's trace
 * points to, level by level. A trace that cannot be read adds nothing below its child.
 */
export function treePointers(
  rootPointers: readonly SubagentPointer[],
  readTrace: (sessionId: string) => readonly OmniMessage[],
): SubagentPointer[] {
  const all: SubagentPointer[] = [];
  const seen = new Set<string>();
  let level = [...rootPointers];
  while (level.length > 0) {
    const next: SubagentPointer[] = [];
    for (const pointer of level) {
      if (seen.has(pointer.subagentId)) continue;
      seen.add(pointer.subagentId);
      all.push(pointer);
      if (!pointer.placement?.launched) continue;
      try {
        next.push(
          ...subagentPointers(readTrace(pointer.sessionId), pointer.subagentId, pointer.placement.depth),
        );
      } catch {}
    }
    level = next;
  }
  return all;
}

/**
 * The messages sent to the root (a `message_sent` in any trace of the tree) that the root's own
 * trace never shows as handed to it (`message_delivered`), oldest first.
 */
export function undeliveredToRoot(
  rootRecords: readonly OmniMessage[],
  childTraces: readonly (readonly OmniMessage[])[],
): AgentMessage[] {
  const delivered = new Set(
    ownEvents<MessageFields>(rootRecords, "message_delivered").map((message) => message.message_id),
  );
  return childTraces
    .flatMap((records) => ownEvents<MessageFields>(records, "message_sent"))
    .filter((sent) => sent.to === ROOT_AGENT_RUN_ID && !delivered.has(sent.message_id))
    .sort((a, b) => a.sent_at.localeCompare(b.sent_at))
    .map((sent) => ({
      id: sent.message_id,
      from: sent.from,
      to: sent.to,
      text: sent.text,
      sentAt: sent.sent_at,
    }));
}

/**
 * Puts back into the root's inbox what it never read: the messages children sent it (their traces
 * record the send; the root's has no delivery), then the end reports of its launched children
 * whose task ended before the process did (the root's trace has no `agent_finished` for them).
 * Traces that cannot be read add nothing. Call after `manager.restore`.
 */
export function restoreRootInbox(
  manager: SubagentManager,
  rootSessionId: string,
  pointers: readonly SubagentPointer[],
  readTrace: (sessionId: string) => readonly OmniMessage[],
): void {
  const readable = (sessionId: string): readonly OmniMessage[] => {
    try {
      return readTrace(sessionId);
    } catch {
      return [];
    }
  };
  const rootRecords = readable(rootSessionId);
  const children = pointers.map((pointer) => readable(pointer.sessionId));
  for (const message of undeliveredToRoot(rootRecords, children)) manager.messages.restore(message);
  const reported = new Set(
    ownEvents<{ agent_run_id: string }>(rootRecords, "agent_finished").map((event) => event.agent_run_id),
  );
  for (const pointer of pointers) {
    const child = manager.get(pointer.subagentId);
    if (!child?.placement.launched || child.placement.parent !== ROOT_AGENT_RUN_ID) continue;
    if (reported.has(child.id) || child.status !== "idle" || !child.lastTask) continue;
    reportEnd(manager.messages, child);
  }
}
