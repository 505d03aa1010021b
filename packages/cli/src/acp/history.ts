import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { Session } from "@penguin/core";
import { readTraceFile } from "@penguin/trace";
import { UpdateTranslator } from "./updates.js";

/**
 * A resumed session's conversation as `session/update`s, from its trace: the user's prompts, the
 * model's text and thinking, and each tool call with its outcome, in the order they happened.
 */
export function historyUpdates(session: Session): SessionUpdate[] {
  const translator = new UpdateTranslator(() => session.workspaceDir, true);
  const updates: SessionUpdate[] = [];
  for (const record of readTraceFile(session.tracePath).records)
    updates.push(...translator.translate(record));
  return updates;
}
