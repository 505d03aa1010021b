import type { FileEffect } from "@penguin/protocol";
import type { JournalEntry } from "@penguin/trace";
import { sha256IfPresent } from "../files/effects.js";

// What Penguin checks itself about an uncertain call ("Work that survives a crash"): each file the
// call was about to change is hashed now and compared with the hashes journaled before the change.
//   every file has its "after" hash   -> applied        (suggests accept)
//   every file has its "before" hash  -> not applied    (suggests retry)
//   anything else                     -> changed since  (no suggestion: someone must look)
// A command session or job is described by a lookup the caller plugs in (the process registry);
// without one it is "unknown".

/** Where one file stands against the hashes the call journaled. */
export type FileState = "after" | "before" | "neither";

export interface FileCheck {
  path: string;
  /** Its sha256 now (null: absent); undefined when it could not be read. */
  currentSha256: string | null | undefined;
  state: FileState;
}

export type EvidenceVerdict = "applied" | "not applied" | "changed since" | "unknown";

export interface StepEvidence {
  toolCallId: string;
  verdict: EvidenceVerdict;
  /** The decision the evidence points to; absent when it points to none. */
  suggestion?: "accept" | "retry";
  files: FileCheck[];
  /** What the process lookup says about the call's command session or job. */
  process?: string;
  /** One line: what Penguin checked and found (what `activity_resolved.verified` records). */
  summary: string;
}

export interface EvidenceOptions {
  /** Describes a command session or job by id (e.g. "exited 0"); undefined: not known. */
  describeProcess?: (id: string) => string | undefined;
}

const LISTED_PATHS = 3;

/** Checks an uncertain call's journaled effects against the workspace as it is now. */
export async function gatherEvidence(
  entry: JournalEntry,
  options: EvidenceOptions = {},
): Promise<StepEvidence> {
  const files = await Promise.all(entry.files.map(checkFile));
  const process = entry.processId === undefined ? undefined : describe(entry.processId, options);
  const base = { toolCallId: entry.toolCallId, files, ...(process !== undefined ? { process } : {}) };
  if (files.length === 0) {
    return {
      ...base,
      verdict: "unknown",
      summary: process ?? "unknown: no file change was journaled, so there is nothing to compare",
    };
  }
  const withProcess = (text: string) => (process === undefined ? text : `${text}; ${process}`);
  if (files.every((file) => file.state === "after")) {
    return {
      ...base,
      verdict: "applied",
      suggestion: "accept",
      summary: withProcess(`applied: ${listPaths(files)} ${hasHave(files)} the hash the call would give`),
    };
  }
  if (files.every((file) => file.state === "before")) {
    return {
      ...base,
      verdict: "not applied",
      suggestion: "retry",
      summary: withProcess(
        `not applied: ${listPaths(files)} still ${hasHave(files)} the hash from before the call`,
      ),
    };
  }
  const changed = files.filter((file) => file.state !== "before" && file.state !== "after");
  const partly =
    changed.length === 0
      ? "some files were changed and others not"
      : `${listPaths(changed)} ${hasHave(changed)} neither the hash before nor the hash after`;
  return { ...base, verdict: "changed since", summary: withProcess(`changed since: ${partly}`) };
}

/** The lookup's line for a process (it names the id itself, as the registry's does), else "unknown". */
function describe(id: string, options: EvidenceOptions): string {
  const line = options.describeProcess?.(id);
  if (line === undefined) return `process ${id}: unknown`;
  return line.startsWith(id) ? line : `process ${id}: ${line}`;
}

async function checkFile(effect: FileEffect): Promise<FileCheck> {
  let currentSha256: string | null | undefined;
  try {
    currentSha256 = await sha256IfPresent(effect.path);
  } catch {
    currentSha256 = undefined;
  }
  // A call that leaves a file as it was matches both: it counts as applied.
  const state: FileState =
    currentSha256 === undefined
      ? "neither"
      : currentSha256 === effect.after_sha256
        ? "after"
        : currentSha256 === effect.before_sha256
          ? "before"
          : "neither";
  return { path: effect.path, currentSha256, state };
}

function listPaths(files: readonly FileCheck[]): string {
  const shown = files.slice(0, LISTED_PATHS).map((file) => file.path);
  const more = files.length - shown.length;
  return more > 0 ? `${shown.join(", ")} and ${more} more` : shown.join(", ");
}

const hasHave = (files: readonly FileCheck[]) => (files.length === 1 ? "has" : "have");
