import { type CommandChanges, isPayload, type OmniMessage, taskChanges } from "@penguin/protocol";
import type { TraceWriter } from "@penguin/trace";
import {
  type ChangeSetRef,
  type ChangeSummary,
  changeSetOf,
  checkpointBookOf,
  type RevertOptions,
  type RevertOutcome,
  revertChangeSet,
  summarize,
  summaryNow,
} from "../checkpoints/index.js";
import type { Environment } from "../environment/environment.js";

// `session.changes(task)` and `session.revert(task, options)`: a task's file changes and their
// revert, from the checkpoints the file tools took (checkpoints/). A task is named by its number
// in the session (1 is the first) or, for a revert, by the id the revert returned (`undo-1`);
// none: the latest change set with changes.

export type { ChangeSetRef, ChangeSummary, RevertOptions, RevertOutcome };

/** A revert refused because the session's files are still being changed (a task, a subagent). */
export class RevertBusyError extends Error {
  override readonly name = "RevertBusyError";
}

export interface ChangesOptions {
  /** Include a unified diff of every text file. */
  diff?: boolean;
}

interface ChangeParts {
  id: string;
  trace: TraceWriter;
  environment: Environment;
  /** The session's subagents (a top-level session's): one running in the background still changes files. */
  subagents?: { list(): readonly { subagentId: string; status: string }[] };
}

function bookOf(parts: ChangeParts) {
  const book = checkpointBookOf(parts.id);
  if (!book) throw new Error(`session ${parts.id} keeps no checkpoints (it is a subagent's, or closed)`);
  return book;
}

export async function changesOf(
  parts: ChangeParts,
  ref: ChangeSetRef | undefined,
  options: ChangesOptions = {},
): Promise<ChangeSummary | undefined> {
  const book = bookOf(parts);
  const changeSet = changeSetOf(book, ref);
  if (changeSet === undefined) return undefined;
  return summarize(book, changeSet, options);
}

export async function revertOf(
  parts: ChangeParts,
  ref: ChangeSetRef | undefined,
  options: RevertOptions,
  running: boolean,
): Promise<RevertOutcome | undefined> {
  if (running) throw new RevertBusyError(`session ${parts.id} is running a task; revert once it has ended`);
  // A subagent still at work writes into the same checkpoints: its files would change under the revert.
  const working = parts.subagents?.list().filter((subagent) => subagent.status === "running") ?? [];
  if (working.length > 0) {
    const ids = working.map((subagent) => subagent.subagentId).join(", ");
    throw new RevertBusyError(
      `session ${parts.id} has subagents still running (${ids}); revert once they have ended`,
    );
  }
  // A revert is recorded, so that it can be undone: not once the trace is closed.
  if (parts.trace.closed) throw new Error(`session ${parts.id} is disposed; penguin undo reverts it offline`);
  const book = bookOf(parts);
  const changeSet = changeSetOf(book, ref, true);
  if (changeSet === undefined) return undefined;
  const append = (record: OmniMessage) => {
    if (!parts.trace.closed) parts.trace.append(record);
  };
  const outcome = await revertChangeSet(book, changeSet, options, append);
  // The write guard forgets what it knew of the restored paths: they must be read again.
  parts.environment.forgetReads(outcome.restored);
  return outcome;
}

/**
 * A task's change summary, just before its `task_end`: in the trace (`beforeRecord` sees every
 * record the task writes) and in the stream (`around` the task's messages). Just before the end
 * (`beforeTaskEnd`), the line counts of the files the task changed are taken (one diff per file)
 * and, for a task that ran a command, git's view of what the commands changed.
 */
export class TaskChangesSlot {
  private event: OmniMessage | undefined;
  private commands: { changeSet: string; commands: CommandChanges } | undefined;

  constructor(private readonly parts: ChangeParts) {}

  async beforeTaskEnd(): Promise<void> {
    const book = checkpointBookOf(this.parts.id);
    if (!book) return;
    const changed = book.changedTask();
    // The line counts of the files the task changed: one diff per file, at the end.
    if (changed !== undefined) await book.countLines(changed);
    if (!book.ranCommands()) return;
    try {
      this.commands = await book.commandChanges();
    } catch {
      // git's view could not be compared: the summary says nothing of commands.
    }
  }

  beforeRecord(message: OmniMessage): void {
    if (!isPayload(message, "task_end")) return;
    const book = checkpointBookOf(this.parts.id);
    const commands = this.commands;
    this.commands = undefined;
    const changeSet = book?.changedTask() ?? commands?.changeSet;
    if (!book || changeSet === undefined || this.parts.trace.closed) return;
    const { files } = summaryNow(book, changeSet);
    const byCommands = commands?.changeSet === changeSet ? commands.commands : undefined;
    // Commands' changes alone are worth a summary; "not tracked" alone is not (no file changed that is known).
    const seen = byCommands?.tracked === "git" && byCommands.files.length > 0;
    if (files.length === 0 && !seen) return;
    if (byCommands) book.noteCommands(changeSet, byCommands);
    this.event = taskChanges({
      change_set: changeSet,
      files,
      ...(byCommands ? { commands: byCommands } : {}),
    });
    this.parts.trace.append(this.event);
  }

  async *around(
    task: AsyncGenerator<OmniMessage, unknown, undefined>,
  ): AsyncGenerator<OmniMessage, unknown, undefined> {
    for (;;) {
      const step = await task.next();
      if (step.done) return step.value;
      if (this.event && isPayload(step.value, "task_end")) {
        yield this.event;
        this.event = undefined;
      }
      yield step.value;
    }
  }
}
