/** What a session's `task_state` event and the API report: nothing, a task or a compaction runs. */
export type RuntimeState = "idle" | "running" | "compacting";

/**
 * A task or compaction that went ahead, with the task state it entered. The 202 answers this
 * state, not the runtime's state when the answer is sent: a short compaction can end before its
 * start's own database write lands, and "compacting" is what the client asked for and saw begin.
 */
export interface Started {
  readonly began: TaskState;
}

/**
 * How a request to start a task or a compaction went: it runs, a task is running (`busy`), or a
 * compaction is running (`compacting`).
 */
export type StartOutcome = Started | "busy" | "compacting";

/** The refusals of a start: everything but `Started`. */
export type StartRefusal = Exclude<StartOutcome, Started>;

/** What a session's `task_state` event and the API report about its task. */
export interface TaskState {
  state: RuntimeState;
  /** Steering texts queued for the running task and not yet delivered to the model. */
  pendingSteering: number;
}
