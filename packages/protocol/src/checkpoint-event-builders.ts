import { eventMsg } from "./builders.js";
import type {
  ChangesRevertedPayload,
  FileCheckpointPayload,
  TaskChangesPayload,
} from "./checkpoint-events.js";

// Builders of the checkpoint events (checkpoint-events.ts): the fields without `type`.

type Fields<P> = { [K in keyof P as string extends K ? never : K extends "type" ? never : K]: P[K] };

export const fileCheckpoint = (fields: Fields<FileCheckpointPayload>) =>
  eventMsg({ type: "file_checkpoint", ...fields });
export const taskChanges = (fields: Fields<TaskChangesPayload>) =>
  eventMsg({ type: "task_changes", ...fields });
export const changesReverted = (fields: Fields<ChangesRevertedPayload>) =>
  eventMsg({ type: "changes_reverted", ...fields });
