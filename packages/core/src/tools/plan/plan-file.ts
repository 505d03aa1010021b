import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { PlanStep } from "@penguin/protocol";
import { ensurePrivateDir } from "@penguin/state";

/**
 * The checklist update_plan keeps, in the session's scratchpad. The trace holds the same fact
 * (`plan_updated`); the file is for the person and for whatever reads the scratchpad.
 */
export const PLAN_CHECKLIST_FILE = "plan.json";

/** Writes the checklist (0600), replacing the last one. */
export async function writePlanChecklist(scratchpadDir: string, steps: readonly PlanStep[]): Promise<string> {
  await ensurePrivateDir(scratchpadDir);
  const path = join(scratchpadDir, PLAN_CHECKLIST_FILE);
  await writeFile(path, `${JSON.stringify({ steps }, null, 2)}\n`, { mode: 0o600 });
  return path;
}
