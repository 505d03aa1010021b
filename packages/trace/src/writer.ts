import { closeSync, fdatasyncSync, fstatSync, openSync, readSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { envelopeError, isPartialMessage, type OmniMessage } from "@penguin/protocol";
import { TraceError } from "./errors.js";
import { dayFolderName, findSessionFileRefs, type TraceLocation, traceFileName } from "./location.js";
import { type TraceMirror, traceMirrorOf } from "./mirror.js";
import { ensurePrivateDir, fsyncDir, PRIVATE_FILE_MODE } from "./private-fs.js";
import { assertSessionId } from "./session-id.js";

export interface TraceWriterOptions {
  /**
   * "survives power loss": flush every record to the disk (fdatasync) before `append` returns.
   * Off by default: a record is then in the OS page cache when `append` returns, which survives a
   * crash or SIGKILL of the process but not a power cut or a kernel crash.
   */
  fsync?: boolean;
  /** Called once when the writer is closed (its owner lets go of what it held for it). */
  onClose?: () => void;
}

export interface CreateTraceOptions extends TraceWriterOptions {
  /** The session's start; picks the `<yyyy-mm-dd>` folder (UTC). Defaults to now. */
  date?: Date;
}

const NEWLINE = 0x0a;

/**
 * Appends a session's records to its trace, one JSON line per record.
 *
 * Guarantees:
 * - Each record is one `write(2)` of the whole line (JSON + "\n") on an O_APPEND descriptor, so
 *   a record is either entirely in the file or, after a crash mid-write, a torn last line that
 *   readers skip. (Only if the kernel accepts part of a line, which happens when the disk is full
 *   or a signal interrupts a huge write, is the rest written by a second call.)
 * - A torn last line left by an earlier crash is repaired before the next append: that append
 *   starts with a newline, so the fragment becomes one skipped line and never corrupts a record.
 * - Partials (`partial_*`) and messages tagged with an `origin` (a child session's messages,
 *   which its own trace holds) are not written: `append` returns false for them.
 * - An invalid envelope, a first record of a file that is not `session_meta`, or a session_meta
 *   of another session throws `TraceError("invalid_record")`: that is a caller bug, and writing
 *   it would leave a line every reader has to skip.
 * - After `close()`, `append` and `rotate` throw `TraceError("writer_closed")` rather than drop a
 *   record silently: "nothing is lost" is the promise, and a late write is a caller bug.
 * - I/O errors (disk full, permissions) are thrown as the `fs` error.
 *
 * - When the traces' folder has a mirror (mirror.ts), each record written goes to it as well, and
 *   `stored()` says when the mirror holds the records so far.
 *
 * One writer per session at a time (the engine runs one task per session); two processes
 * appending to the same session are not coordinated.
 */
export class TraceWriter {
  readonly sessionId: string;
  readonly #dayDir: string;
  readonly #fsync: boolean;
  readonly #onClose: (() => void) | undefined;
  readonly #mirror: TraceMirror | undefined;
  #index: number;
  #path: string;
  #fd: number | undefined;
  /** True when the file may end without a newline (a torn line): the next write starts with one. */
  #checkTail: boolean;
  /** False until the current file holds its first record, which must be session_meta. */
  #fileHasRecords: boolean;

  private constructor(
    sessionId: string,
    dayDir: string,
    index: number,
    fd: number,
    opts: TraceWriterOptions,
    mirror: TraceMirror | undefined,
  ) {
    this.sessionId = sessionId;
    this.#dayDir = dayDir;
    this.#index = index;
    this.#path = join(dayDir, traceFileName(sessionId, index));
    this.#fd = fd;
    this.#fsync = opts.fsync === true;
    this.#onClose = opts.onClose;
    this.#mirror = mirror;
    const size = fstatSync(fd).size;
    this.#fileHasRecords = size > 0;
    this.#checkTail = size > 0;
  }

  /**
   * Starts a new session's trace: `<tracesDir>/<yyyy-mm-dd>/<id>_001.jsonl`, created 0600 in
   * folders created 0700. Refuses (`session_exists`) when the session already has a trace.
   */
  static create(loc: TraceLocation, sessionId: string, opts: CreateTraceOptions = {}): TraceWriter {
    assertSessionId(sessionId);
    if (findSessionFileRefs(loc, sessionId).length > 0) {
      throw new TraceError(
        "session_exists",
        `session ${sessionId} already has a trace under ${loc.tracesDir}`,
      );
    }
    ensurePrivateDir(loc.tracesDir);
    const dayDir = join(loc.tracesDir, dayFolderName(opts.date ?? new Date()));
    ensurePrivateDir(dayDir);
    const fd = openNewTraceFile(join(dayDir, traceFileName(sessionId, 1)), sessionId);
    if (opts.fsync) {
      // The new file's entry, and the day folder's entry in case it is new too.
      fsyncDir(dayDir);
      fsyncDir(loc.tracesDir);
    }
    return new TraceWriter(sessionId, dayDir, 1, fd, opts, traceMirrorOf(loc.tracesDir));
  }

  /**
   * Opens an existing session to go on appending: its highest-index file. A torn last line is
   * repaired before the next append. Throws `session_not_found` when the session has no trace.
   */
  static open(loc: TraceLocation, sessionId: string, opts: TraceWriterOptions = {}): TraceWriter {
    assertSessionId(sessionId);
    const refs = findSessionFileRefs(loc, sessionId);
    const last = refs.at(-1);
    if (!last)
      throw new TraceError("session_not_found", `session ${sessionId} has no trace under ${loc.tracesDir}`);
    const fd = openSync(last.path, "a+", PRIVATE_FILE_MODE);
    return new TraceWriter(sessionId, dirname(last.path), last.index, fd, opts, traceMirrorOf(loc.tracesDir));
  }

  /** The file records go to now (changes on `rotate`). */
  get path(): string {
    return this.#path;
  }

  /** 1 for `_001`, 2 for `_002`, ... */
  get fileIndex(): number {
    return this.#index;
  }

  get closed(): boolean {
    return this.#fd === undefined;
  }

  /** Appends one record; returns false when the record is not one a trace stores (see class doc). */
  append(message: OmniMessage): boolean {
    const fd = this.#openFd("append to");
    if (isPartialMessage(message)) return false;
    if (message.origin !== undefined && message.origin.length > 0) return false;
    this.#validate(message);
    const json = JSON.stringify(message);
    let line = `${json}\n`;
    if (this.#checkTail) {
      if (!this.#endsWithNewline(fd)) line = `\n${line}`;
      this.#checkTail = false;
    }
    const bytes = Buffer.from(line, "utf8");
    try {
      let written = writeSync(fd, bytes, 0, bytes.length);
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    } catch (err) {
      // Part of the line may be in the file: look at its end before the next write.
      this.#checkTail = true;
      throw err;
    }
    if (this.#fsync) fdatasyncSync(fd);
    this.#fileHasRecords = true;
    this.#mirror?.appended(
      { sessionId: this.sessionId, fileIndex: this.#index, day: basename(this.#dayDir) },
      json,
    );
    return true;
  }

  /**
   * Resolves once the records appended so far are stored wherever the trace is mirrored (at once
   * without a mirror: the file write is done when `append` returns); rejects when they cannot be.
   */
  stored(): Promise<void> {
    return this.#mirror ? this.#mirror.stored(this.sessionId) : Promise.resolve();
  }

  /**
   * Starts the next file, `<id>_<NNN+1>.jsonl`, in the same day folder (one file per model
   * context, for compaction). Its first record must be a session_meta. Returns the new path.
   */
  rotate(): string {
    const fd = this.#openFd("rotate");
    const nextIndex = this.#index + 1;
    const nextPath = join(this.#dayDir, traceFileName(this.sessionId, nextIndex));
    const nextFd = openNewTraceFile(nextPath, this.sessionId);
    if (this.#fsync) fsyncDir(this.#dayDir);
    closeSync(fd);
    this.#fd = nextFd;
    this.#index = nextIndex;
    this.#path = nextPath;
    this.#checkTail = false;
    this.#fileHasRecords = false;
    return nextPath;
  }

  /** Closes the file. Safe to call more than once. */
  close(): void {
    if (this.#fd === undefined) return;
    const fd = this.#fd;
    this.#fd = undefined;
    try {
      closeSync(fd);
    } finally {
      this.#onClose?.();
    }
  }

  #openFd(action: string): number {
    if (this.#fd === undefined) {
      throw new TraceError(
        "writer_closed",
        `cannot ${action} the trace of session ${this.sessionId}: writer closed`,
      );
    }
    return this.#fd;
  }

  #validate(message: OmniMessage): void {
    const error = envelopeError(message);
    if (error !== undefined) {
      const where = error.path ? ` at ${error.path}` : "";
      throw new TraceError("invalid_record", `not a valid trace record${where}: ${error.message}`);
    }
    if (!this.#fileHasRecords && message.type !== "session_meta") {
      throw new TraceError(
        "invalid_record",
        `the first record of ${this.#path} must be session_meta, got ${message.type}/${message.payload.type}`,
      );
    }
    if (message.type === "session_meta" && message.payload.session_id !== this.sessionId) {
      throw new TraceError(
        "invalid_record",
        `session_meta for session ${message.payload.session_id} cannot go to the trace of ${this.sessionId}`,
      );
    }
  }

  #endsWithNewline(fd: number): boolean {
    const size = fstatSync(fd).size;
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] === NEWLINE;
  }
}

function openNewTraceFile(path: string, sessionId: string): number {
  try {
    // "ax+": O_APPEND | O_CREAT | O_EXCL, readable so the tail can be checked after an error.
    return openSync(path, "ax+", PRIVATE_FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") {
      throw new TraceError("session_exists", `trace file ${path} of session ${sessionId} already exists`);
    }
    throw err;
  }
}
