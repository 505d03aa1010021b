import { errorMessage } from "@penguin/protocol";
import type { TraceMirror, TraceStreamRef } from "@penguin/trace";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { ServerDatabase } from "../db/schema.js";

/** Rows per INSERT: well under PostgreSQL's 65,535 bind parameters (5 per row). */
export const BATCH_ROWS = 500;
/** The wait before a failed INSERT is tried again, doubled up to the maximum. */
const RETRY_FIRST_MS = 200;
const RETRY_MAX_MS = 5_000;
/**
 * How long a tool waits for its `tool_dispatched` to reach the database before its call fails
 * unrun: a database that is down for longer is an outage the user must hear of, not a hang.
 */
export const TRACE_STORE_TIMEOUT_MS = 30_000;

interface QueuedRecord {
  ref: TraceStreamRef;
  line: string;
  /** Its place in this process's order of records, 1, 2, … */
  seq: number;
}

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

const streamKey = (ref: TraceStreamRef) => `${ref.sessionId}\u0000${ref.fileIndex}`;

/**
 * The trace mirror that stores records in the `trace_records` table: `appended` queues a record
 * (trace writers call it synchronously), one INSERT at a time stores the queue in order, and
 * `stored` resolves once a session's records so far are in. A failed INSERT is retried (it adds
 * nothing twice: a row already there is skipped); a session's waiters give up after
 * TRACE_STORE_TIMEOUT_MS with the database's reason. Positions continue each file where the
 * table's rows end, so a session taken over from another instance goes on after its records.
 */
export class TraceRecordQueue implements TraceMirror {
  readonly #queue: QueuedRecord[] = [];
  /** The next position of each file this process appends to, once read from the table. */
  readonly #nextPosition = new Map<string, number>();
  readonly #lastSeqOf = new Map<string, number>();
  #waiters: Waiter[] = [];
  #seq = 0;
  #storedSeq = 0;
  #flushing: Promise<void> | undefined;
  #lastError: unknown;
  /** Set when the server stops: a failing insert is not tried again (the database is closing). */
  #abandoned = false;

  constructor(
    private readonly db: Kysely<ServerDatabase>,
    private readonly logger: Logger,
    private readonly timeoutMs: number = TRACE_STORE_TIMEOUT_MS,
  ) {}

  appended(ref: TraceStreamRef, line: string): void {
    const seq = ++this.#seq;
    this.#queue.push({ ref, line, seq });
    this.#lastSeqOf.set(ref.sessionId, seq);
    this.#flushing ??= this.#flush();
  }

  stored(sessionId: string): Promise<void> {
    return this.#storedUpTo(
      this.#lastSeqOf.get(sessionId) ?? 0,
      `the trace of session ${sessionId}`,
      "the call was not run",
    );
  }

  /**
   * Resolves once every record appended so far, of any session, is stored (see `stored`);
   * `consequence` ends the message of a timeout (what did not happen for want of them).
   */
  storedAll(consequence: string): Promise<void> {
    return this.#storedUpTo(this.#seq, "the traces", consequence);
  }

  #storedUpTo(seq: number, what: string, consequence: string): Promise<void> {
    if (seq <= this.#storedSeq) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        seq,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.#waiters = this.#waiters.filter((other) => other !== waiter);
          const reason = this.#lastError === undefined ? "no answer" : errorMessage(this.#lastError);
          reject(
            new Error(
              `${what} could not be stored in the database within ${this.timeoutMs / 1000} s (${reason}); ${consequence}`,
            ),
          );
        }, this.timeoutMs).unref(),
      };
      this.#waiters.push(waiter);
    });
  }

  /** Resolves once everything queued so far is stored (or given up on at close). */
  async drain(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  /** From now on a failed insert ends the flushing: what is still queued is given up. */
  abandon(): void {
    this.#abandoned = true;
  }

  /** Forgets where the files of these sessions end (their rows were deleted). */
  forget(sessionIds: readonly string[]): void {
    const gone = new Set(sessionIds);
    for (const id of gone) this.#lastSeqOf.delete(id);
    for (const key of this.#nextPosition.keys()) {
      if (gone.has(key.slice(0, key.indexOf("\u0000")))) this.#nextPosition.delete(key);
    }
  }

  async #flush(): Promise<void> {
    let delay = RETRY_FIRST_MS;
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.slice(0, BATCH_ROWS);
        try {
          await this.#insert(batch);
        } catch (error) {
          this.#lastError = error;
          if (this.#abandoned) {
            this.logger.error({ err: error, records: this.#queue.length }, "trace records given up at stop");
            this.#queue.length = 0;
            for (const waiter of this.#waiters.splice(0)) {
              clearTimeout(waiter.timer);
              waiter.reject(new Error("the server stopped before the trace records were stored"));
            }
            break;
          }
          this.logger.error(
            { err: error, records: this.#queue.length },
            "could not store trace records; retrying",
          );
          await new Promise((resolve) => setTimeout(resolve, delay).unref());
          delay = Math.min(delay * 2, RETRY_MAX_MS);
          continue;
        }
        delay = RETRY_FIRST_MS;
        this.#lastError = undefined;
        this.#queue.splice(0, batch.length);
        this.#storedSeq = batch.at(-1)?.seq ?? this.#storedSeq;
        this.#wake();
      }
    } finally {
      this.#flushing = undefined;
    }
  }

  async #insert(batch: readonly QueuedRecord[]): Promise<void> {
    const rows = [];
    const next = new Map<string, number>();
    for (const { ref, line } of batch) {
      const key = streamKey(ref);
      const position = next.get(key) ?? this.#nextPosition.get(key) ?? (await this.#endOf(ref)) + 1;
      next.set(key, position + 1);
      rows.push({
        session_id: ref.sessionId,
        file_index: ref.fileIndex,
        day: ref.day,
        position,
        record: line,
      });
    }
    await this.db
      .insertInto("trace_records")
      .values(rows)
      .onConflict((conflict) => conflict.columns(["session_id", "file_index", "position"]).doNothing())
      .execute();
    for (const [key, position] of next) this.#nextPosition.set(key, position);
  }

  async #endOf(ref: TraceStreamRef): Promise<number> {
    const row = await this.db
      .selectFrom("trace_records")
      .select((eb) => eb.fn.max("position").as("last"))
      .where("session_id", "=", ref.sessionId)
      .where("file_index", "=", ref.fileIndex)
      .executeTakeFirst();
    return Number(row?.last ?? 0);
  }

  #wake(): void {
    const still: Waiter[] = [];
    for (const waiter of this.#waiters) {
      if (waiter.seq <= this.#storedSeq) {
        clearTimeout(waiter.timer);
        waiter.resolve();
      } else {
        still.push(waiter);
      }
    }
    this.#waiters = still;
  }
}
