import type { OmniMessage } from "@penguin/protocol";
import { type JournalEntry, toolJournal } from "@penguin/trace";
import type { Style } from "../render/style.js";

// What `penguin sessions show` says about work a crash may have left half done: the tool calls
// that were dispatched and have no result and no decision (uncertain), and the decisions taken
// on such calls. Read from the trace's journal (tool_dispatched / tool_effect / activity_resolved).

/** Characters of a call's arguments shown on its line. */
const ARGUMENTS_SHOWN = 80;

export interface RecoveryView {
  uncertain: JournalEntry[];
  resolved: JournalEntry[];
}

export function recoveryOf(records: readonly OmniMessage[]): RecoveryView {
  const journal = toolJournal(records);
  return {
    uncertain: journal.filter((entry) => entry.uncertain),
    resolved: journal.filter((entry) => entry.resolution !== undefined),
  };
}

function shortArguments(text: string): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > ARGUMENTS_SHOWN ? `${flat.slice(0, ARGUMENTS_SHOWN)}…` : flat;
}

function shortHash(hash: string | null): string {
  return hash === null ? "absent" : hash.slice(0, 12);
}

/** The lines of the recovery part (none when nothing is uncertain or resolved). */
export function recoveryLines(view: RecoveryView, style: Style): string[] {
  const lines: string[] = [];
  if (view.uncertain.length > 0) {
    lines.push(
      style.bold("uncertain steps") +
        style.dim(" (started, no result recorded: they may have had their effect; check, then resolve)"),
    );
    for (const entry of view.uncertain) {
      lines.push(
        `  ${style.yellow(entry.toolCallId)} ${entry.name} ${style.dim(shortArguments(entry.arguments))}`,
      );
      for (const file of entry.files) {
        lines.push(
          style.dim(`    ${file.path}: ${shortHash(file.before_sha256)} → ${shortHash(file.after_sha256)}`),
        );
      }
      if (entry.processId) lines.push(style.dim(`    started ${entry.processId}`));
    }
  }
  if (view.resolved.length > 0) {
    lines.push(style.bold("resolved steps"));
    for (const entry of view.resolved) {
      const resolution = entry.resolution;
      if (!resolution) continue;
      lines.push(
        `  ${entry.toolCallId} ${entry.name}: ${resolution.decision} by ${resolution.by}: ${resolution.evidence}`,
      );
    }
  }
  return lines;
}
