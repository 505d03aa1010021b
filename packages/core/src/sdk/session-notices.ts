import type { OmniMessage } from "@penguin/protocol";
import type { NoticesSettings } from "@penguin/state";
import type { TraceWriter } from "@penguin/trace";
import { type HandlerCatalog, NoticeBoard } from "../notices/index.js";
import type { ProcessManager } from "../processes/process-manager.js";
import type { CommandSession } from "../processes/session.js";
import type { ChildFinished, SubagentManager } from "../tools/subagent/index.js";

// Penguin's own notices ("from Penguin itself (`job.exited`, `agent.finished`)"): a background job
// of run_command that exits, and a child agent whose task ends. Each is posted only when no tool
// call is following it at that moment: a call that waits on the job or the child returns its end
// to the model anyway. Like any notice, one that no handler takes is dropped (silently).

export const JOB_EXITED = "job.exited";
export const AGENT_FINISHED = "agent.finished";

export interface SessionNoticesInput {
  handlers: HandlerCatalog;
  settings: NoticesSettings;
  trace: TraceWriter;
  /** The records the session's next run yields first: an event recorded while idle goes there too. */
  header: OmniMessage[];
  processes: ProcessManager;
  subagents: SubagentManager | undefined;
}

/** A session's notice board, taking Penguin's own notices from its jobs and children. */
export function sessionNotices(input: SessionNoticesInput): NoticeBoard {
  const board = new NoticeBoard({
    handlers: input.handlers,
    settings: input.settings,
    record: (message) => {
      if (input.trace.closed) return;
      input.trace.append(message);
      input.header.push(message);
    },
  });
  postSessionEvents(board, input.processes, input.subagents);
  return board;
}

function postSessionEvents(
  board: NoticeBoard,
  processes: ProcessManager,
  subagents: SubagentManager | undefined,
): void {
  processes.onExit((job) => {
    if (job.origin === "run_command" && job.activeCalls === 0) board.post(jobExited(job));
  });
  subagents?.onChildFinished((finished) => {
    const child = subagents.get(finished.agentRunId);
    // A call that follows the child (run_subagent, input_subagent) hands its end over itself.
    if (child && child.activeCalls === 0) board.post(agentFinished(finished, child.sessionId));
  });
}

function jobExited(job: CommandSession) {
  const exit = job.exit;
  const how =
    exit?.kind === "code"
      ? `with exit code ${exit.code}`
      : exit?.kind === "signal"
        ? `on signal ${exit.signal}`
        : exit?.kind === "spawn-error"
          ? `without starting (${exit.message})`
          : `with an unknown exit code (${exit?.reason === "adopted" ? "it was started before Penguin restarted" : "no exit status"})`;
  return {
    type: JOB_EXITED,
    summary: `Background job ${job.id}${job.purpose ? ` (${job.purpose})` : ""} exited ${how}. Its output is read with the job tools (wait_job, read_job_output).`,
    data: {
      job_id: job.id,
      command: job.cmd,
      ...(job.purpose ? { purpose: job.purpose } : {}),
      ...(exit?.kind === "code" ? { exit_code: exit.code } : {}),
      ...(exit?.kind === "signal" ? { signal: exit.signal } : {}),
      ran_ms: (job.endedAt ?? Date.now()) - job.startedAt,
    },
  };
}

function agentFinished(finished: ChildFinished, sessionId: string) {
  const { agentRunId, parent, outcome, launched } = finished;
  // A launched child's report waits in its launcher's inbox; run_subagent's answer, with input_subagent.
  const read = launched
    ? `Its report waits in the inbox of ${parent} (wait_messages).`
    : "Read its answer with input_subagent.";
  return {
    type: AGENT_FINISHED,
    summary: `Child agent ${agentRunId}${finished.agent ? ` (${finished.agent})` : ""} finished its task (${outcome.status}). ${read}`,
    data: {
      agent_run_id: agentRunId,
      parent,
      session_id: sessionId,
      status: outcome.status,
      ...(finished.agent ? { agent: finished.agent } : {}),
      ...(outcome.message ? { message: outcome.message } : {}),
    },
  };
}
