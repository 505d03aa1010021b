import { sep } from "node:path";

// "Hash-guarded writes … replacing, editing, moving or removing a file needs a read (or listing)
// of it earlier in the same task (since the last user message)": what the agent has seen of each
// path in the current task. The Environment keeps one per session and clears it when a task starts.

/** How the agent came to know a path in this task. */
export interface FileKnowledge {
  /** `read`: read_file showed it (with its hash); `listed`: list_files named it; `written`: a change of this task produced it. */
  how: "read" | "listed" | "written";
  /** sha256 (hex) of the whole file when it was read or written; absent for a listing. */
  sha256?: string;
}

export class FileReadRegistry {
  private readonly known = new Map<string, FileKnowledge>();

  /** Forgets everything: a new user message starts a new task. */
  clear(): void {
    this.known.clear();
  }

  get(path: string): FileKnowledge | undefined {
    return this.known.get(path);
  }

  noteRead(path: string, sha256: string): void {
    this.known.set(path, { how: "read", sha256 });
  }

  /** A listing never erases a hash the agent already has. */
  noteListed(path: string): void {
    if (!this.known.has(path)) this.known.set(path, { how: "listed" });
  }

  noteWritten(path: string, sha256: string): void {
    this.known.set(path, { how: "written", sha256 });
  }

  /** A path (and everything below it) is gone. */
  forget(path: string): void {
    const prefix = path.endsWith(sep) ? path : `${path}${sep}`;
    for (const key of [...this.known.keys()]) {
      if (key === path || key.startsWith(prefix)) this.known.delete(key);
    }
  }

  /** A path (and everything below it) moved: what was known follows it. */
  moved(from: string, to: string): void {
    const prefix = from.endsWith(sep) ? from : `${from}${sep}`;
    const carried: [string, FileKnowledge][] = [];
    for (const [key, value] of this.known) {
      if (key === from) carried.push([to, value]);
      else if (key.startsWith(prefix)) carried.push([to + key.slice(from.length), value]);
    }
    this.forget(from);
    for (const [key, value] of carried) this.known.set(key, value);
  }
}
