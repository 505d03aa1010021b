import type { Stats } from "node:fs";
import type { ToolExecutionContext } from "../../environment/types.js";
import { shownPath } from "./file-tool-support.js";
import { sha256File } from "./hashes.js";
import { checkExistingFile, type GuardVerdict } from "./write-guard.js";

// The write guard for the tools that move and remove paths: a regular file is checked like any
// changed file (read, hash unchanged, and `expected_sha256` where required); a directory or a
// symlink must at least have been listed (or read) in this task.

/** The guard's verdict; a regular file's hash rides along when the guard took it (the journal reuses it). */
export type PathChangeVerdict = { ok: true; sha256?: string } | Exclude<GuardVerdict, { ok: true }>;

export async function checkPathChange(
  ctx: ToolExecutionContext,
  path: string,
  info: Stats,
  change: { tool: string; action: string; needsExpected: boolean; expected?: string },
): Promise<PathChangeVerdict | "aborted"> {
  const registry = ctx.fileReads;
  if (!registry) return { ok: true };
  if (info.isFile()) {
    const currentSha256 = await sha256File(path, ctx.signal);
    if (currentSha256 === undefined) return "aborted";
    const verdict = checkExistingFile(registry, path, { ...change, currentSha256 });
    return verdict.ok ? { ok: true, sha256: currentSha256 } : verdict;
  }
  if (registry.get(path) !== undefined) return { ok: true };
  const kind = info.isDirectory() ? "directory" : info.isSymbolicLink() ? "symlink" : "path";
  return {
    ok: false,
    message: `Refused by the write guard: ${change.tool} did not ${change.action} ${shownPath(path)}. This ${kind} has not been listed in this task: list it (or its parent) with list_files first.`,
  };
}
