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
  /** What Penguin found when it checked (each file's hash now, a job's state). */
  evidence: string;
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

/** A command or job of the session recorded in its process registry, with its state now. */
export interface RetainedProcess {
  id: string;
  origin: "exec_command" | "run_command";
  command: string;
  /** `interrupted`: it ended while Penguin was not running; `reused-pid`: its pid is another program's now. */
  state: "running" | "exited" | "interrupted" | "reused-pid";
  pid?: number;
  /** How it ended, when that is known. */
  exit?:
    | { kind: "code"; code: number }
    | { kind: "signal"; signal: string }
    | { kind: "spawn-error"; message: string };
  started_at: string;
  ended_at?: string;
  /** Bytes of output kept (0: none kept). */
  output_bytes: number;
}

export interface RecoveryView {
  uncertain: UncertainStep[];
  resolved: ResolvedStep[];
  processes: RetainedProcess[];
}

/** What POST .../recovery/:toolCallId/resolve answers: the decision as recorded. */
export interface RecordedDecision {
  tool_call_id: string;
  name: string;
  decision: "retry" | "accept";
  evidence: string;
  by: "user";
  /** What Penguin checked itself when the decision was recorded. */
  verified?: string;
  session_id?: string;
}
