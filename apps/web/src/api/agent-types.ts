/** One agent of a session as GET /api/sessions/:id/agents lists it (depth first, the root first). */
export interface AgentRow {
  /** `root` for the session's own agent, else the child's id (`sub_N`). */
  agent_run_id: string;
  /** The run id of the agent that launched it; absent for the root. */
  parent?: string;
  session_id: string;
  depth: number;
  /** The named agent it runs. */
  agent?: string;
  task?: string;
  /** How its last task ended (`completed`, `failed`, `aborted`, ...), `running`, `interrupted` or `unknown`. */
  status: string;
  messages_sent: number;
  messages_received: number;
  questions_asked: number;
  /** Why its trace could not be read (`missing`, `invalid_id`, `cycle`). */
  problem?: string;
}
