// The journal of tool calls after a crash: Penguin's own evidence on an uncertain call, and the
// decision taken on it (resolve_execution_activity, session.resolve).
import type { ToolFactory } from "../../environment/types.js";
import type { JournalAccess } from "./resolve.js";
import { createResolveExecutionActivityTool } from "./resolve-tool.js";

export {
  type EvidenceOptions,
  type EvidenceVerdict,
  type FileCheck,
  type FileState,
  gatherEvidence,
  type StepEvidence,
} from "./evidence.js";
export { type RecoveryView, recoveryView } from "./recovery-view.js";
export {
  type JournalAccess,
  type JournalView,
  type ResolutionFields,
  type ResolveOutcome,
  type ResolveRequest,
  resolveActivity,
  type UncertainStep,
  uncertainSteps,
} from "./resolve.js";
export { createResolveExecutionActivityTool } from "./resolve-tool.js";

/** The journal tool's factory bound to one session's journal, for `createBuiltinTools`. */
export function journalToolFactories(access: JournalAccess | undefined): Record<string, ToolFactory> {
  return {
    resolve_execution_activity: (definition) => createResolveExecutionActivityTool(definition, access),
  };
}
