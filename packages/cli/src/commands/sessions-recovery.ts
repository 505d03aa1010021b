import { existsSync } from "node:fs";
import { join } from "node:path";
import type { RetainedProcess, StepEvidence } from "@penguin/core";
import type { OmniMessage } from "@penguin/protocol";
import { type JournalEntry, toolJournal } from "@penguin/trace";
import { formatTable } from "../render/format.js";
import { checkLine, processRow, shortText } from "../render/recovery-rows.js";
import type { Style } from "../render/style.js";

// What `penguin sessions show` says about work a crash may have left half done: the tool calls
// that were dispatched and have no result and no decision (uncertain), each with Penguin's own
// check of it; the decisions taken on such calls; and the commands and jobs of the session's
// process registry. Read from the trace's journal (tool_dispatched / tool_effect /
// activity_resolved) and the scratchpad.

export interface UncertainRow extends JournalEntry {
  /** Penguin's check now: the files' hashes against the journal's, a command against the registry. */
  check: StepEvidence;
}

export interface RecoveryView {
  uncertain: UncertainRow[];
  resolved: JournalEntry[];
  /** Every command and job in the session's process registry, with its state now. */
  processes: RetainedProcess[];
}

/**
 * The recovery part of a session. The SDK (for the checks and the registry) is loaded only when
 * there is something to check, so `sessions show` of an ordinary session stays light.
 */
export async function recoveryOf(records: readonly OmniMessage[], scratchpad: string): Promise<RecoveryView> {
  const journal = toolJournal(records);
  const hasRegistry = existsSync(join(scratchpad, "processes"));
  if (!journal.some((entry) => entry.uncertain) && !hasRegistry) {
    return {
      uncertain: [],
      resolved: journal.filter((entry) => entry.resolution !== undefined),
      processes: [],
    };
  }
  const { recoveryView } = await import("@penguin/core");
  const view = await recoveryView(journal, scratchpad);
  return {
    uncertain: view.uncertain.map(({ entry, check }) => ({ ...entry, check })),
    resolved: view.resolved,
    processes: view.processes,
  };
}

function shortHash(hash: string | null): string {
  return hash === null ? "absent" : hash.slice(0, 12);
}

/** The lines of the recovery part (none when nothing is uncertain, resolved or retained). */
export function recoveryLines(view: RecoveryView, style: Style): string[] {
  const lines: string[] = [];
  if (view.uncertain.length > 0) {
    lines.push(
      style.bold("uncertain steps") +
        style.dim(" (started, no result recorded: they may have had their effect; check, then resolve)"),
    );
    for (const entry of view.uncertain) {
      lines.push(
        `  ${style.yellow(entry.toolCallId)} ${entry.name} ${style.dim(shortText(entry.arguments))}`,
      );
      for (const file of entry.files) {
        lines.push(
          style.dim(`    ${file.path}: ${shortHash(file.before_sha256)} → ${shortHash(file.after_sha256)}`),
        );
      }
      if (entry.processId) lines.push(style.dim(`    started ${entry.processId}`));
      lines.push(`    ${checkLine(entry.check)}`);
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
  if (view.processes.length > 0) {
    lines.push(style.bold("commands and jobs"));
    const rows = view.processes.map((process) => processRow(process, style));
    for (const line of formatTable(rows)) lines.push(`  ${line}`);
  }
  return lines;
}
