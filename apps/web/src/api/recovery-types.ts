/** A tool call a crash left started with no result (GET /api/sessions/:id/recovery). */
export interface UncertainStep {
  tool_call_id: string;
  name: string;
  /** The arguments as the model wrote them (JSON text). */
  arguments: string;
  dispatched_at?: string;
  files: { path: string; before_sha256: string | null; after_sha256: string | null }[];
  process_id?: string;
  /** The running task started it: it may simply not have finished yet. */
  in_progress: boolean;
  /** What Penguin found when it checked (a file's hash now, a job's state), when it could. */
  evidence?: string;
  /** What Penguin's check suggests: `accept`, `retry`, or none when a person must look. */
  suggestion?: "accept" | "retry";
}

export interface ResolvedStep {
  tool_call_id: string;
  name: string;
  decision: "retry" | "accept";
  evidence: string;
  by: "agent" | "user" | "penguin";
  verified?: string;
  at: string;
}

/** A command or job of the session recorded in its process registry. */
export interface RetainedProcess {
  id: string;
  command: string;
  state: string;
  pid?: number;
}

export interface RecoveryView {
  uncertain: UncertainStep[];
  resolved: ResolvedStep[];
  processes?: RetainedProcess[];
}
