import { readFileSync } from "node:fs";

// Telling whether a pid still names the process Penguin started. A pid alone is not enough: after
// the process ends, the kernel may hand the same number to an unrelated program. A process's start
// time (in clock ticks since boot, field 22 of /proc/<pid>/stat) never changes while it lives, and
// the boot id tells one boot from the next, so the pair (boot id, start time) identifies it.

/** Where a process was when it was recorded: enough to recognise it later. */
export interface ProcessIdentity {
  pid: number;
  /** Field 22 of /proc/<pid>/stat, as text (it can exceed 2^53 on long uptimes in theory). */
  startTicks: string;
  bootId: string;
}

/** What became of a recorded process. */
export type IdentityCheck = "running" | "gone" | "reused";

/** The current boot's id (Linux), or undefined where there is none. */
export function currentBootId(): string | undefined {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The fields of /proc/<pid>/stat that Penguin reads. */
export interface ProcStat {
  /** Field 3: one letter, R, S, D, Z (zombie), X (dead), … */
  state: string;
  /** Field 5: the process group. */
  pgrp: number;
  /** Field 22: the start time. */
  startTicks: string;
}

/** /proc/<pid>/stat read, or undefined if the process has no entry (gone, or not Linux). */
export function readProcStat(pid: number | string): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so split after the last ")".
  // fields[0] is field 3 (state), so field 5 is fields[2] and field 22 is fields[19].
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const [state, , pgrp] = fields;
  const startTicks = fields[19];
  if (state === undefined || pgrp === undefined || startTicks === undefined) return undefined;
  return { state, pgrp: Number(pgrp), startTicks };
}

/** The identity of a live process, or undefined where /proc cannot tell (not Linux, gone already). */
export function identityOf(
  pid: number,
  bootId: string | undefined = currentBootId(),
): ProcessIdentity | undefined {
  const stat = readProcStat(pid);
  if (!stat || bootId === undefined) return undefined;
  return { pid, startTicks: stat.startTicks, bootId };
}

/**
 * Whether the recorded process still runs (same boot, same pid, same start time), has ended, or
 * its pid now belongs to another program. A zombie counts as ended: it runs nothing, and under an
 * init that does not reap, it would otherwise look alive forever.
 */
export function checkIdentity(
  recorded: ProcessIdentity,
  bootId: string | undefined = currentBootId(),
): IdentityCheck {
  if (bootId === undefined || bootId !== recorded.bootId) return "gone";
  const stat = readProcStat(recorded.pid);
  if (!stat) return "gone";
  if (stat.startTicks !== recorded.startTicks) return "reused";
  return stat.state === "Z" || stat.state === "X" ? "gone" : "running";
}
