import { readdirSync, readFileSync } from "node:fs";

// Peak resident memory of a process and everything it started (the shells of its tool calls),
// read from /proc: Linux only, which is where the benchmarks are run and recorded.

/** Child pids of one process (every thread's `children` file under /proc/<pid>/task). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return children; // The process has just ended.
  }
  for (const task of tasks) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim();
      if (text) for (const child of text.split(" ")) children.push(Number(child));
    } catch {
      // The thread has just ended.
    }
  }
  return children;
}

/** Resident set size in bytes (VmRSS); 0 once the process has ended. */
function rssBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

function commandName(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}

/**
 * The summed RSS of a process and its descendants at this moment. A child that still has its
 * parent's name is taken for a fork that has not yet exec'd its program: its pages are the
 * parent's, shared, and counting them twice would double the figure for a millisecond.
 */
export function treeRssBytes(rootPid: number): number {
  let total = 0;
  const pending = [rootPid];
  while (pending.length > 0) {
    const pid = pending.pop() as number;
    total += rssBytes(pid);
    const name = commandName(pid);
    for (const child of childrenOf(pid)) if (commandName(child) !== name) pending.push(child);
  }
  return total;
}

export interface TreeRssSampler {
  /** Stops sampling; the highest summed RSS seen, and the root process's own highest RSS. */
  stop(): { treeBytes: number; rootBytes: number };
}

/** Samples a process tree's RSS every `everyMs` until stopped (a short peak between samples is missed). */
export function sampleTreeRss(rootPid: number, everyMs = 10): TreeRssSampler {
  const peak = { treeBytes: 0, rootBytes: 0 };
  const sample = () => {
    peak.treeBytes = Math.max(peak.treeBytes, treeRssBytes(rootPid));
    peak.rootBytes = Math.max(peak.rootBytes, rssBytes(rootPid));
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}
