import { CommandChangesSchema } from "@penguin/protocol/schemas";
import { z } from "zod";

// The bodies of GET /api/sessions/:id/changes and POST /api/sessions/:id/revert: a session's
// change sets (its tasks' file changes and its reverts) and what a revert restored.

/** A task by its number in the session (1 is the first), or a revert by its id (`undo-1`). */
export const ChangeSetRefSchema = z
  .string()
  .max(32)
  .regex(/^(?:[1-9][0-9]{0,8}|undo-[1-9][0-9]{0,8})$/, "a task number (1, 2, …) or a revert id (undo-1, …)");

export const ChangesQuerySchema = z.object({
  task: ChangeSetRefSchema.optional().describe(
    "One change set only: a task number (1 is the first) or a revert id (undo-1)",
  ),
  diff: z
    .enum(["0", "1", "true", "false"])
    .optional()
    .describe("1 or true: with `task`, include the unified diff of every text file"),
});

const FileChangeRowSchema = z.object({
  path: z.string().describe("Absolute path"),
  status: z.enum(["added", "changed", "moved", "removed"]),
  from: z.string().optional().describe("For moved: where it was before"),
  kind: z.enum(["file", "directory", "symlink"]),
  lines_added: z.number().int().nonnegative(),
  lines_removed: z.number().int().nonnegative(),
  restorable: z
    .boolean()
    .describe("Whether its prior state can be restored (false: a file over the checkpoint size limit)"),
});

export const ChangeSetRowSchema = z.object({
  change_set: z.string().describe('A task\'s number ("1") or a revert\'s id ("undo-1")'),
  kind: z.enum(["task", "revert"]),
  reverts: z.string().optional().describe("For a revert: the change set it reverted"),
  reverted_by: z
    .string()
    .optional()
    .describe("The revert that reverted this change set (absent when it is not reverted, or its revert was)"),
  files: z.array(FileChangeRowSchema),
  commands: CommandChangesSchema.optional().describe(
    "When the task ran a command: the files its commands changed as git saw them (never reverted), or why they could not be seen",
  ),
  diff: z.string().optional().describe("The unified diff of every text file (with ?diff=1)"),
});

export const ChangesResponseSchema = z.object({
  change_sets: z.array(ChangeSetRowSchema).describe("Newest first; with ?task=, that one change set"),
});

export const RevertRequestSchema = z.strictObject({
  task: ChangeSetRefSchema.optional().describe(
    "The change set to revert; default: the newest task not already reverted",
  ),
  dry_run: z
    .boolean()
    .optional()
    .describe("Report what would be restored and what conflicts; change nothing"),
  force: z
    .boolean()
    .optional()
    .describe(
      "Also overwrite paths changed since the change set (a file never stored still cannot come back)",
    ),
});

const RevertConflictRowSchema = z.object({
  path: z.string(),
  reason: z
    .enum(["changed_since", "not_restorable"])
    .describe(
      "changed_since: changed after the change set; not_restorable: its prior content was never stored",
    ),
  expected_sha256: z
    .string()
    .nullable()
    .optional()
    .describe("The hash the change set left (null: nothing there)"),
  current_sha256: z.string().nullable().optional().describe("The hash there now (null: nothing there)"),
});

export const RevertResponseSchema = z.object({
  session_id: z.string(),
  reverted: z.string().describe("The change set reverted"),
  change_set: z
    .string()
    .nullable()
    .describe(
      "The revert's own change set (so it can be reverted); null for a dry run or when nothing changed",
    ),
  restored: z.array(z.string()).describe("Paths restored (for a dry run: that would be)"),
  conflicts: z.array(RevertConflictRowSchema).describe("Paths left alone (with force: overwritten anyway)"),
  dry_run: z.boolean(),
  forced: z.boolean(),
  commands: CommandChangesSchema.optional().describe(
    "What the reverted task's commands changed: left as they are (a revert never touches them)",
  ),
});
