import { resolve } from "node:path";

// A trace can be kept in a second place as well as its file (a database shared by several server
// instances, so that another machine can take a session over). The file stays what every reader
// reads; the mirror receives each record as it is written and says when the records so far are
// stored, which the engine awaits before a tool starts ("`tool_dispatched` is in the trace before
// the tool can act" must hold for the copy another machine resumes from, too).

/** The file a record went to: the session, its file's index (`_001` is 1) and its day folder. */
export interface TraceStreamRef {
  sessionId: string;
  fileIndex: number;
  day: string;
}

export interface TraceMirror {
  /**
   * One record was appended to the file `ref` names: `line` is its JSON text, without the newline.
   * Called synchronously right after the write; it must neither throw nor block (queue the work).
   */
  appended(ref: TraceStreamRef, line: string): void;
  /**
   * Resolves once every record `appended` so far for `sessionId` is stored; rejects, with a
   * message a user can act on, when that cannot be done.
   */
  stored(sessionId: string): Promise<void>;
}

const mirrors = new Map<string, TraceMirror>();

/**
 * From now on, every trace writer opened under `tracesDir` (in this process) hands its records to
 * `mirror` as well. Returns the function that stops it (writers already open keep their mirror).
 * One mirror per folder: a second one for the same folder is refused.
 */
export function mirrorTraces(tracesDir: string, mirror: TraceMirror): () => void {
  const key = resolve(tracesDir);
  if (mirrors.has(key)) throw new Error(`the traces under ${key} are mirrored already`);
  mirrors.set(key, mirror);
  return () => {
    if (mirrors.get(key) === mirror) mirrors.delete(key);
  };
}

/** The mirror of the traces under `tracesDir`, if one is registered. */
export function traceMirrorOf(tracesDir: string): TraceMirror | undefined {
  return mirrors.size === 0 ? undefined : mirrors.get(resolve(tracesDir));
}
