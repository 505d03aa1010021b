import type { FileReadRegistry } from "../../environment/file-reads.js";
import type { ToolExecutionContext } from "../../environment/types.js";
import { shownPath } from "./file-tool-support.js";
import { sha256File, sha256Note, sha256Of } from "./hashes.js";

// The checks of the hash-guarded writes, shared by every tool that changes files. "a mismatch
// means the file changed underneath and the call is refused with both hashes".

export type GuardVerdict = { ok: true } | { ok: false; message: string };

export interface ExistingFileChange {
  /** The tool, for the message ("write_file", "apply_patch", …). */
  tool: string;
  /** What the call does to the file, for the message ("replace", "remove", "update", …). */
  action: string;
  /** The file's sha256 right now. */
  currentSha256: string;
  /** Whether the call must carry the read's hash (`write_file`, `remove_path`). */
  needsExpected: boolean;
  /** The `expected_sha256` argument, if given. */
  expected?: string;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Normalizes an `expected_sha256` argument (hex, any case, optional `sha256:` prefix). */
export function normalizeSha256(value: string): string {
  return value
    .trim()
    .replace(/^sha256:/i, "")
    .toLowerCase();
}

/**
 * Whether the agent may change an existing file: it must know the file from this task, and the
 * file must still be what it saw. Returns the refusal text otherwise.
 */
export function checkExistingFile(
  registry: FileReadRegistry,
  path: string,
  change: ExistingFileChange,
): GuardVerdict {
  const shown = shownPath(path);
  const known = registry.get(path);
  const refused = `Refused by the write guard: ${change.tool} did not ${change.action} ${shown}.`;
  if (!known) {
    return {
      ok: false,
      message: `${refused} It has not been read in this task: read it with read_file first${change.needsExpected ? ", then pass the sha256 it reports as expected_sha256" : ""}.`,
    };
  }
  if (change.needsExpected) {
    if (change.expected === undefined) {
      return {
        ok: false,
        message: `${refused} The file exists, so expected_sha256 is required: pass the sha256 that read_file reported for it.`,
      };
    }
    const expected = normalizeSha256(change.expected);
    if (!SHA256_HEX.test(expected)) {
      return {
        ok: false,
        message: `${refused} expected_sha256 must be 64 hex digits, got ${JSON.stringify(change.expected)}.`,
      };
    }
    if (expected !== change.currentSha256) {
      return {
        ok: false,
        message: `${refused} The file changed underneath: expected_sha256 ${expected}, but the file now has sha256 ${change.currentSha256}. Read it again before changing it.`,
      };
    }
    return { ok: true };
  }
  if (known.sha256 !== undefined && known.sha256 !== change.currentSha256) {
    return {
      ok: false,
      message: `${refused} The file changed underneath: it had sha256 ${known.sha256} when you read it, and has sha256 ${change.currentSha256} now. Read it again before changing it.`,
    };
  }
  return { ok: true };
}

/** `expected_sha256` given for a file that does not exist: it was removed (or never was). */
export function checkMissingFile(path: string, tool: string, expected: string | undefined): GuardVerdict {
  if (expected === undefined) return { ok: true };
  return {
    ok: false,
    message: `Refused by the write guard: ${tool} was given expected_sha256 ${normalizeSha256(expected)}, but ${shownPath(path)} does not exist (it was removed or moved). Check the path; a new file needs no expected_sha256.`,
  };
}

/**
 * read_file under the write guard: hashes the whole file, remembers the read for this task and
 * returns the note the output ends with. Undefined while the guard is off, or when the file
 * cannot be hashed (then the read is not remembered either).
 */
export async function recordRead(ctx: ToolExecutionContext, path: string): Promise<string | undefined> {
  if (!ctx.fileReads) return undefined;
  try {
    const sha256 = await sha256File(path, ctx.signal);
    if (sha256 === undefined) return undefined;
    ctx.fileReads.noteRead(path, sha256);
    return sha256Note(sha256);
  } catch {
    return undefined;
  }
}

/**
 * read_file under the write guard, of text read through the session's seam: remembers the text's
 * hash for this task and returns the note (undefined while the guard is off).
 */
export function recordTextRead(ctx: ToolExecutionContext, path: string, sha256: string): string | undefined {
  if (!ctx.fileReads) return undefined;
  ctx.fileReads.noteRead(path, sha256);
  return sha256Note(sha256);
}

/** After a successful change under the guard: the new content is known, and its hash is reported. */
export function recordWrite(
  ctx: ToolExecutionContext,
  path: string,
  content: string | Uint8Array,
): string | undefined {
  if (!ctx.fileReads) return undefined;
  const sha256 = sha256Of(content);
  ctx.fileReads.noteWritten(path, sha256);
  return sha256Note(sha256);
}
