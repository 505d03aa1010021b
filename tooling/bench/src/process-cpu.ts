import { readdirSync, readFileSync } from "node:fs";

// CPU time of one running process, read from /proc (Linux only, like process-tree.ts). Each
// thread's `schedstat` starts with the time it has spent on a CPU, in nanoseconds: precise enough
// for a few milliseconds of work, where `/proc/<pid>/stat` counts 10 ms clock ticks.

export interface ProcessCpu {
  /** The main thread's: where a Node program's JavaScript runs. */
  mainNs: number;
  /** All its threads' together: the main one, V8's compiler and collector helpers, libuv's pool. */
  allNs: number;
}

/** Nanoseconds a thread has run, or undefined once it has ended (or without schedstat). */
function threadRunNs(pid: number, tid: string): number | undefined {
  try {
    const first = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0];
    const ns = Number(first);
    return Number.isFinite(ns) ? ns : undefined;
  } catch {
    return undefined;
  }
}

/** The process's CPU time at this moment; undefined once it has ended or where /proc has no schedstat. */
export function processCpu(pid: number): ProcessCpu | undefined {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  // The main thread's id is the process's; each thread's file is read once.
  let mainNs: number | undefined;
  let allNs = 0;
  for (const tid of tids) {
    const ns = threadRunNs(pid, tid);
    if (ns === undefined) continue;
    allNs += ns;
    if (tid === String(pid)) mainNs = ns;
  }
  return mainNs === undefined ? undefined : { mainNs, allNs };
}
