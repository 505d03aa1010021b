import type { FileEffect } from "@penguin/protocol";
import type { CheckpointOutcome, ToolExecutionContext } from "../../environment/types.js";
import { fsErrorCode } from "./file-tool-support.js";
import { sha256File } from "./hashes.js";

// The journal's "effect" step for file tools ("Work that survives a crash"): before a tool changes
// a file it records the file's hash now and the hash it will have, so that after a crash the
// file's current hash tells whether the change happened. Recorded before the first change, never
// after: a crash between the record and the change leaves a record that says "maybe".

/** sha256 (hex) of the regular file at `path`, or null when nothing is there; other errors throw. */
export async function sha256IfPresent(path: string): Promise<string | null> {
  try {
    return (await sha256File(path)) ?? null;
  } catch (error) {
    if (fsErrorCode(error) === "ENOENT") return null;
    throw error;
  }
}

/** Journals the files a call is about to change (nothing outside an engine turn, or no file). */
export function recordFileEffects(ctx: ToolExecutionContext, files: readonly FileEffect[]): void {
  if (files.length === 0) return;
  ctx.recordEffect?.({ files: [...files] });
}

/**
 * A regular file's hash for its effect record: the one the write guard took a moment ago when it
 * took one (no second read of the file), else read now.
 */
export async function effectHash(
  path: string,
  guardSha256: string | undefined,
): Promise<{ ok: true; sha256: string | null } | { ok: false; error: unknown }> {
  if (guardSha256 !== undefined) return { ok: true, sha256: guardSha256 };
  try {
    return { ok: true, sha256: await sha256IfPresent(path) };
  } catch (error) {
    return { ok: false, error };
  }
}

/**
 * Stores the prior state of the paths a call is about to change, for a revert of its task
 * (`ctx.checkpoint`); ok when the session keeps no checkpoints.
 */
export async function checkpointPaths(
  ctx: ToolExecutionContext,
  paths: readonly string[],
  options?: { recursive?: boolean },
): Promise<CheckpointOutcome> {
  return (await ctx.checkpoint?.(paths, options)) ?? { ok: true };
}
