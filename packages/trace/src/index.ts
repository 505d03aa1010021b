// @penguin/trace: a session's history, durable (append-only JSONL, one write per record),
// readable (readers that skip bad lines with diagnostics) and resumable (rebuildContext).
// Layout, record order and commit rules: docs/sessions-and-traces.md.

export {
  type AgentTreeNode,
  type AgentTreeOptions,
  type AgentTreeStatus,
  agentTree,
  flattenAgentTree,
  ROOT_AGENT_RUN_ID,
} from "./agent-tree.js";
export { type AuditEntry, approvalAudit } from "./audit.js";
export { type LocalTraceStream, localTraceStreams, writeTraceCopy } from "./copy.js";
export { TraceError, type TraceErrorCode } from "./errors.js";
export {
  EXECUTION_PARTS,
  type ExecutionItem,
  type ExecutionPage,
  type ExecutionPart,
  executionItems,
  executionJournal,
  executionRecords,
  pageItems,
} from "./execution-parts.js";
export {
  type AgentRecords,
  EXECUTION_STATES,
  type Execution,
  type ExecutionFilter,
  type ExecutionReadOptions,
  type ExecutionState,
  listExecutions,
  sessionAgents,
  type TaskSpan,
  taskSpans,
} from "./executions.js";
export {
  type JournalEntry,
  type JournalResolution,
  type JournalState,
  toolJournal,
  uncertainCalls,
} from "./journal.js";
export { findSessionFileRefs, findSessionFiles, type TraceFileRef, type TraceLocation } from "./location.js";
export {
  MAX_SUMMARIZED_SESSIONS,
  sessionMetrics,
  summarizeObservations,
} from "./metrics.js";
export { mirrorTraces, type TraceMirror, type TraceStreamRef } from "./mirror.js";
export {
  OBSERVATION_KINDS,
  type Observation,
  type ObservationKind,
  ObservationRecorder,
  observationsOf,
} from "./observations.js";
export { applyPlanRecord, planOfRecords, type SessionPlan } from "./plan.js";
export { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "./private-fs.js";
export {
  iterateSession,
  readSession,
  readTraceFile,
  type SessionContents,
  type TraceDiagnostic,
  type TraceFileContents,
} from "./reader.js";
export {
  CARRY_OVER_TAGS,
  type CarryOver,
  interruptedOutputText,
  isCarryOverText,
  type ResumeState,
  type ResumeTokens,
  rebuildContext,
} from "./resume.js";
export { isValidSessionId } from "./session-id.js";
export { type DeleteResult, deleteSession, listSessions, type SessionSummary } from "./sessions.js";
export { type SubagentNode, subagentTree } from "./subagents.js";
export {
  type ExportResult,
  type ExportText,
  exportSession,
  exportSessionText,
  type ImportOptions,
  importSession,
  importSessionText,
} from "./transfer.js";
export { type CreateTraceOptions, TraceWriter, type TraceWriterOptions } from "./writer.js";
