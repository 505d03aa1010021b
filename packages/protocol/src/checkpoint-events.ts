import { z } from "zod";
import { fieldSchemas } from "./fields.js";
import { onFirstUse } from "./on-first-use.js";

// Checkpoints of the files a task changes, so that the task can be reverted. Every record names
// its change set: a task of the top-level session (`"3"`, the task's number in that session's
// trace) or a revert (`"undo-1"`), whose own changes can be reverted in turn. The records are in
// the top-level session's trace, subagents' and named agents' changes included (they belong to
// the task that launched them). The content they point at lives in the session's scratchpad
// (`checkpoints/blobs/<sha256>`).

/** The schemas of this module, built on the first call (on-first-use.ts). */
export const checkpointEventSchemas = onFirstUse(() => {
  const { anyBoolean, anyString, nonEmptyString, nonNegativeInt, optionalNonEmptyString } = fieldSchemas();

  const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

  /** What was at a path: nothing, a file (its content's hash and mode), a directory or a symlink. */
  const PathStateSchema = z.discriminatedUnion("kind", [
    z.looseObject({ kind: z.literal("absent") }),
    z.looseObject({
      kind: z.literal("file"),
      sha256,
      /** Permission bits (e.g. 0o644 as 420). */
      mode: nonNegativeInt,
      size: nonNegativeInt,
      /** Whether the content is in the store; `false`: over the size limit, the file cannot be restored. */
      stored: anyBoolean,
    }),
    z.looseObject({
      kind: z.literal("directory"),
      mode: nonNegativeInt,
      /** Hash of the listing of everything below it (paths, kinds, modes, hashes): after-states only. */
      tree_sha256: sha256.optional(),
    }),
    z.looseObject({ kind: z.literal("symlink"), target: anyString }),
  ]);

  /**
   * One path of a change set: its state before the change set's first change to it (`before`,
   * recorded before that change), or the state a call left it in (`after`, recorded after each call
   * that changed it; the latest one counts).
   */
  const FileCheckpointPayloadSchema = z.looseObject({
    type: z.literal("file_checkpoint"),
    change_set: nonEmptyString,
    /** Absolute path. */
    path: nonEmptyString,
    before: PathStateSchema.optional(),
    after: PathStateSchema.optional(),
    /** The session whose tool made the change (a subagent's), when not this one. */
    session_id: optionalNonEmptyString,
    tool_call_id: optionalNonEmptyString,
  });

  /** One path of a change summary. */
  const FileChangeSchema = z.looseObject({
    path: nonEmptyString,
    status: z.enum(["added", "changed", "moved", "removed"]),
    /** For `moved`: where it was before. */
    from: optionalNonEmptyString,
    kind: z.enum(["file", "directory", "symlink"]),
    lines_added: nonNegativeInt,
    lines_removed: nonNegativeInt,
    /** Whether its prior state can be restored (false: a file over the checkpoint size limit). */
    restorable: anyBoolean,
  });

  /** A path a command (not a file tool) changed: seen in git's view of the workspace, never undone. */
  const CommandFileChangeSchema = z.looseObject({
    /** Absolute path. */
    path: nonEmptyString,
    status: z.enum(["added", "changed", "removed"]),
  });

  /**
   * What the commands of a task changed outside the file tools: the paths git saw change between
   * the task's first command and its end (`tracked: "git"`), or why nothing could be seen
   * (`tracked: "none"`: not a git repository, no git).
   */
  const CommandChangesSchema = z.discriminatedUnion("tracked", [
    z.looseObject({ tracked: z.literal("git"), files: z.array(CommandFileChangeSchema) }),
    z.looseObject({ tracked: z.literal("none"), reason: nonEmptyString }),
  ]);

  /** The files a change set added, changed, moved and removed: recorded when a task ends. */
  const TaskChangesPayloadSchema = z.looseObject({
    type: z.literal("task_changes"),
    change_set: nonEmptyString,
    files: z.array(FileChangeSchema),
    /** Present when the task ran a command: what commands changed (not undoable), or that it is not tracked. */
    commands: CommandChangesSchema.optional(),
  });

  /** A path a revert left alone: changed since the change set (or not restorable). */
  const RevertConflictSchema = z.looseObject({
    path: nonEmptyString,
    reason: z.enum(["changed_since", "not_restorable"]),
    /** The hash the change set left (null: nothing there), and the hash there now. */
    expected_sha256: z.string().nullable().optional(),
    current_sha256: z.string().nullable().optional(),
  });

  /** A revert of change set `reverted`, itself change set `change_set` (so it can be reverted). */
  const ChangesRevertedPayloadSchema = z.looseObject({
    type: z.literal("changes_reverted"),
    change_set: nonEmptyString,
    reverted: nonEmptyString,
    restored: z.array(anyString),
    conflicts: z.array(RevertConflictSchema),
    forced: anyBoolean,
  });
  return {
    PathStateSchema,
    FileCheckpointPayloadSchema,
    FileChangeSchema,
    CommandFileChangeSchema,
    CommandChangesSchema,
    TaskChangesPayloadSchema,
    RevertConflictSchema,
    ChangesRevertedPayloadSchema,
  };
});
type Schemas = ReturnType<typeof checkpointEventSchemas>;
export type PathState = z.infer<Schemas["PathStateSchema"]>;
export type FileCheckpointPayload = z.infer<Schemas["FileCheckpointPayloadSchema"]>;
export type FileChange = z.infer<Schemas["FileChangeSchema"]>;
export type CommandFileChange = z.infer<Schemas["CommandFileChangeSchema"]>;
export type CommandChanges = z.infer<Schemas["CommandChangesSchema"]>;
export type TaskChangesPayload = z.infer<Schemas["TaskChangesPayloadSchema"]>;
export type RevertConflict = z.infer<Schemas["RevertConflictSchema"]>;
export type ChangesRevertedPayload = z.infer<Schemas["ChangesRevertedPayloadSchema"]>;
