import { type OmniMessage, type SessionMetaPayload, type ToolSpec, toolListReady } from "@penguin/protocol";
import type { TraceWriter } from "@penguin/trace";
import type { CompactionHooks } from "../engine/compaction/compact.js";
import type { ConversationState } from "../engine/types.js";
import type { Environment } from "../environment/environment.js";
import type { SubagentManager } from "../tools/subagent/index.js";
import { openWorkOf } from "./open-work.js";

// What a session's compaction does to its trace and asks of the session: the trace's next file
// for a compacted context ("starts with session_meta and tool_list_ready"), and the open work the
// summary must not lose.

export interface CompactionParts {
  trace: TraceWriter;
  meta: OmniMessage<SessionMetaPayload>;
  toolSpecs: ToolSpec[];
  environment: Environment;
  subagents?: SubagentManager;
  scratchpadDir: string;
  /** The conversation: its plan is named after the summary. */
  state: ConversationState;
}

export function sessionCompactionHooks(
  parts: CompactionParts,
  settings: CompactionHooks["settings"],
): CompactionHooks {
  return {
    settings,
    startNewContext: () => {
      parts.trace.rotate();
      const header = [{ ...parts.meta, timestamp: new Date().toISOString() }, toolListReady(parts.toolSpecs)];
      for (const record of header) parts.trace.append(record);
      return header;
    },
    openWork: () => openWorkOf({ ...parts, processes: parts.environment.processes, plan: parts.state.plan }),
  };
}
