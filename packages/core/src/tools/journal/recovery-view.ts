import type { JournalEntry } from "@penguin/trace";
import {
  processDescriber,
  type RetainedProcess,
  retainedProcesses,
} from "../../processes/retained-processes.js";
import { gatherEvidence } from "./evidence.js";
import type { UncertainStep } from "./resolve.js";

// What a crash left in a session, from its journal and its scratchpad, for the front ends that
// show it without opening the session (`penguin sessions show`, the server's recovery route): the
// uncertain calls with Penguin's check, the decisions taken, and the registry's commands and jobs.
// One reading of the journal and one of the registry, whatever the number of calls.

export interface RecoveryView {
  /** Calls started with no result and no decision, in call order, each with Penguin's check. */
  uncertain: UncertainStep[];
  /** Calls a decision was taken on (`entry.resolution`). */
  resolved: JournalEntry[];
  /** Every command and job of the session's process registry, with its state now. */
  processes: RetainedProcess[];
}

/** `journal`: the session's `toolJournal(records)` (the caller may have it already). */
export async function recoveryView(
  journal: readonly JournalEntry[],
  scratchpadDir: string,
): Promise<RecoveryView> {
  const processes = retainedProcesses(scratchpadDir);
  const describeProcess = processDescriber(processes);
  const uncertain = await Promise.all(
    journal
      .filter((entry) => entry.uncertain)
      .map(async (entry) => ({ entry, check: await gatherEvidence(entry, { describeProcess }) })),
  );
  return { uncertain, resolved: journal.filter((entry) => entry.resolution !== undefined), processes };
}
