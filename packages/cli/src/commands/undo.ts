import { relative } from "node:path";
import { openSessionChanges, type RevertOutcome } from "@penguin/core";
import { listSessions, type TraceLocation } from "@penguin/trace";
import { type DataRootOptions, dataRootOf, traceLocationOf } from "../data-root.js";
import { EXIT_COMPLETED, EXIT_TASK_FAILED, UsageError } from "../exit-codes.js";
import { note, out } from "../output.js";
import { commandsLine, quotedName } from "../render/changes-line.js";
import { requireSession, toCliError } from "../session-lookup.js";

// `penguin undo`: reverts a task's file changes from the checkpoints its file tools took, without
// opening the session (no model is needed). The session must not be running meanwhile.

export interface UndoOptions extends DataRootOptions {
  session?: string;
  task?: string;
  dryRun?: boolean;
  force?: boolean;
  json?: boolean;
}

const UNTRACKED =
  "Only changes made through Penguin's file tools are undone: changes made by commands are not tracked.";
const COMMANDS_LEFT =
  "Only changes made through Penguin's file tools are undone: files commands changed are left as they are.";

/** The most recent top-level session (a subagent's changes are its parent's). */
function latestSession(loc: TraceLocation): string {
  const latest = listSessions(loc).find((session) => session.parentSessionId === undefined);
  if (!latest) throw new UsageError(`no sessions under ${loc.tracesDir}`);
  return latest.sessionId;
}

export async function undoCommand(opts: UndoOptions): Promise<number> {
  const root = dataRootOf(opts);
  const loc = traceLocationOf(root);
  const sessionId = opts.session ?? latestSession(loc);
  requireSession(loc, sessionId);
  const task = opts.task === undefined ? undefined : /^\d+$/.test(opts.task) ? Number(opts.task) : opts.task;
  let changes: ReturnType<typeof openSessionChanges>;
  try {
    changes = openSessionChanges(root, sessionId);
  } catch (error) {
    throw toCliError(error, `read session ${sessionId}`);
  }
  try {
    if (task !== undefined && !changes.knows(task)) {
      throw new UsageError(
        `session ${sessionId} has no file changes of ${opts.task}; changed: ${changes.changeSets().join(", ") || "none"}`,
      );
    }
    const outcome = await changes.revert(task, { dryRun: opts.dryRun === true, force: opts.force === true });
    if (opts.json) {
      const json = {
        session_id: sessionId,
        reverted: outcome?.reverted ?? null,
        change_set: outcome?.changeSet ?? null,
        restored: outcome?.restored ?? [],
        conflicts: outcome?.conflicts ?? [],
        dry_run: opts.dryRun === true,
        // What the task's commands changed: never reverted (absent: the task ran no command).
        ...(outcome?.commands ? { commands: outcome.commands } : {}),
      };
      out(JSON.stringify(json, null, 2));
    } else if (!outcome) {
      note(`session ${sessionId} has no file changes left to undo. ${UNTRACKED}`);
    } else {
      for (const line of outcomeLines(sessionId, outcome)) out(line);
      note(outcome.commands ? COMMANDS_LEFT : UNTRACKED);
    }
    const blocked = outcome !== undefined && !outcome.dryRun && outcome.conflicts.length > 0 && !opts.force;
    return blocked ? EXIT_TASK_FAILED : EXIT_COMPLETED;
  } finally {
    changes.close();
  }
}

function outcomeLines(sessionId: string, outcome: RevertOutcome): string[] {
  const shown = (path: string) => quotedName(relative(process.cwd(), path) || ".");
  const what = outcome.reverted.startsWith("undo-")
    ? `revert ${outcome.reverted}`
    : `task ${outcome.reverted}`;
  const lines = [
    `${outcome.dryRun ? "Would revert" : "Reverted"} ${what} of session ${sessionId}: ${outcome.restored.length} path(s).`,
  ];
  for (const path of outcome.restored) lines.push(`  restored  ${shown(path)}`);
  for (const conflict of outcome.conflicts) {
    if (conflict.reason === "not_restorable") {
      lines.push(`  not restorable  ${shown(conflict.path)}: too large to keep a checkpoint of`);
    } else {
      const expected = conflict.expected_sha256 ?? "nothing";
      const current = conflict.current_sha256 ?? "nothing";
      const fate = outcome.restored.includes(conflict.path) ? "overwritten (--force)" : "left alone";
      lines.push(
        `  conflict  ${shown(conflict.path)}: changed since (the task left ${expected}, now ${current}); ${fate}`,
      );
    }
  }
  const byCommands = outcome.commands ? commandsLine(outcome.commands) : undefined;
  if (byCommands) lines.push(`  ${byCommands}`);
  if (outcome.changeSet)
    lines.push(`Undo this revert with: penguin undo --session ${sessionId} --task ${outcome.changeSet}`);
  return lines;
}
