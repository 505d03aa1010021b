import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage, onFirstUse } from "@penguin/protocol";
import { ensurePrivateDir } from "@penguin/state";
import { parse, stringify } from "yaml";
import { z } from "zod";
import { GOAL_FILE_NAME } from "./limits.js";

/**
 * The goal file, `<scratchpad>/<sessionId>/GOAL.yaml`: the system writes the objective with
 * `status: active` when a goal starts; the model may set `status` to `complete`, or to `blocked`
 * with a `reason`, with its file tools. The objective the harness re-injects is the one it wrote,
 * whatever the file says later.
 */

/** The schema of the goal file, built when a goal's status is first read. */
const goalFileSchemas = onFirstUse(() => {
  const GoalFileSchema = z.looseObject({
    objective: z.string().optional(),
    status: z.enum(["active", "complete", "blocked"]),
    reason: z.string().optional(),
  });
  return { GoalFileSchema };
});

/** Where a goal stands, as its file says. */
export type GoalStatus =
  | { status: "active" }
  | { status: "complete" }
  /** `invalid`: the file could not be read or parsed, which counts as blocked. */
  | { status: "blocked"; reason: string; invalid?: true };

export function goalFilePath(scratchpadDir: string): string {
  return join(scratchpadDir, GOAL_FILE_NAME);
}

/** Writes a new goal's file (replacing an earlier goal's). */
export async function writeGoalFile(path: string, scratchpadDir: string, objective: string): Promise<void> {
  await ensurePrivateDir(scratchpadDir);
  const header =
    "# The goal of this session's goal-mode run, written by Penguin.\n" +
    "# Set status to complete when the objective is achieved, or to blocked with a reason.\n";
  await writeFile(path, header + stringify({ objective, status: "active" }), { mode: 0o600 });
}

/** The goal's status from its file; a file that cannot be read or is not valid counts as blocked. */
export async function readGoalStatus(path: string): Promise<GoalStatus> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    return invalid(`the goal file ${path} could not be read (${errorMessage(error)})`);
  }
  let value: unknown;
  try {
    value = parse(text);
  } catch (error) {
    return invalid(`the goal file ${path} is not valid YAML (${firstLine(errorMessage(error))})`);
  }
  const parsed = goalFileSchemas().GoalFileSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
    return invalid(
      `the goal file ${path} is not valid (${where}${issue?.message ?? "not a mapping"}); its status must be active, complete or blocked`,
    );
  }
  const { status, reason } = parsed.data;
  if (status !== "blocked") return { status };
  const given = reason?.trim();
  return { status, reason: given ? given : "the model set status blocked without a reason" };
}

function invalid(reason: string): GoalStatus {
  return { status: "blocked", reason, invalid: true };
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? text;
}
