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

export interface TreeRss {
  /** The summed RSS of the process and its descendants. */
  treeBytes: number;
  /** The root process's own RSS. */
  rootBytes: number;
}

/**
 * The RSS of a process and its descendants at this moment; each /proc file is read once. A child
 * that still has its parent's name is taken for a fork that has not yet exec'd its program: its
 * pages are the parent's, shared, and counting them twice would double the figure for a millisecond.
 */
export function treeRss(rootPid: number): TreeRss {
  const rootBytes = rssBytes(rootPid);
  let treeBytes = rootBytes;
  const pending = [{ pid: rootPid, name: commandName(rootPid) }];
  while (pending.length > 0) {
    const parent = pending.pop() as { pid: number; name: string };
    for (const pid of childrenOf(parent.pid)) {
      const name = commandName(pid);
      if (name === parent.name) continue;
      treeBytes += rssBytes(pid);
      pending.push({ pid, name });
    }
  }
  return { treeBytes, rootBytes };
}

export interface TreeRssSampler {
  /** Stops sampling; the highest summed RSS seen, and the root process's own highest RSS. */
  stop(): TreeRss;
}

/** Samples a process tree's RSS every `everyMs` until stopped (a short peak between samples is missed). */
export function sampleTreeRss(rootPid: number, everyMs = 10): TreeRssSampler {
  const peak: TreeRss = { treeBytes: 0, rootBytes: 0 };
  const sample = () => {
    const now = treeRss(rootPid);
    peak.treeBytes = Math.max(peak.treeBytes, now.treeBytes);
    peak.rootBytes = Math.max(peak.rootBytes, now.rootBytes);
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
