// The journal of tool calls after a crash: Penguin's own evidence on an uncertain call.
export {
  type EvidenceOptions,
  type EvidenceVerdict,
  type FileCheck,
  type FileState,
  gatherEvidence,
  type StepEvidence,
} from "./evidence.js";
