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

interface ProcStat {
  startTicks: string;
  /** One letter: R, S, D, Z (zombie), X (dead), … */
  state: string;
}

/** Field 3 (state) and field 22 (start time) of /proc/<pid>/stat, or undefined if it has no entry. */
function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state), so field 22 is fields[19].
  const startTicks = fields[19];
  const state = fields[0];
  if (startTicks === undefined || state === undefined) return undefined;
  return { startTicks, state };
}

/** The identity of a live process, or undefined where /proc cannot tell (not Linux, gone already). */
export function identityOf(
  pid: number,
  bootId: string | undefined = currentBootId(),
): ProcessIdentity | undefined {
  const stat = readStat(pid);
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
  const stat = readStat(recorded.pid);
  if (!stat) return "gone";
  if (stat.startTicks !== recorded.startTicks) return "reused";
  return stat.state === "Z" || stat.state === "X" ? "gone" : "running";
}
