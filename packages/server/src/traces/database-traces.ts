import { statSync } from "node:fs";
import {
  findSessionFileRefs,
  localTraceStreams,
  mirrorTraces,
  type SubagentNode,
  subagentTree,
  TraceError,
  type TraceLocation,
  type TraceStreamRef,
  writeTraceCopy,
} from "@penguin/trace";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { ServerDatabase } from "../db/schema.js";
import { BATCH_ROWS, TraceRecordQueue } from "./trace-record-queue.js";

/** Where a server keeps its traces: files in the data root only, or the database as well. */
export const TRACE_STORAGES = ["files", "database"] as const;
export type TraceStorage = (typeof TRACE_STORAGES)[number];

/** How long closing waits for queued records to reach the database before it gives up on them. */
const CLOSE_DRAIN_MS = 10_000;

/**
 * Traces kept in the database (`penguin serve --traces database`), for instances that share a
 * database but no data root. Every record this process writes goes to the `trace_records` table
 * as well (TraceRecordQueue); the files in this instance's data root stay what the readers read,
 * and `restore` makes them match the table before a session another instance wrote is read or
 * taken over. The table is the truth: a file that is not a prefix of its rows is replaced.
 */
export class DatabaseTraces {
  readonly #queue: TraceRecordQueue;
  readonly #stopMirror: () => void;
  /** One restore of a session at a time: two at once would append the same records twice. */
  readonly #restoring = new Map<string, Promise<void>>();
  /**
   * What the last restore left in each session's files (records and size per file index): while
   * a file keeps that size and the table has no more rows, it is not read again. Reads of a
   * session another instance runs come often (every call, every stream), its files are long.
   */
  readonly #known = new Map<string, Map<number, { records: number; size: number }>>();

  constructor(
    private readonly db: Kysely<ServerDatabase>,
    private readonly logger: Logger,
    private readonly location: TraceLocation,
    storeTimeoutMs?: number,
  ) {
    this.#queue = new TraceRecordQueue(db, logger, storeTimeoutMs);
    this.#stopMirror = mirrorTraces(location.tracesDir, this.#queue);
  }

  /** Brings this instance's files of the session, and of its subagents, up to the table's rows. */
  async restoreTree(sessionId: string): Promise<void> {
    const seen = new Set<string>();
    const visit = async (id: string): Promise<void> => {
      if (seen.has(id)) return;
      seen.add(id);
      await this.restore(id);
      for (const child of this.#children(id)) await visit(child);
    };
    await visit(sessionId);
  }

  /** Brings this instance's files of one session up to the table's rows. */
  restore(sessionId: string): Promise<void> {
    const running = this.#restoring.get(sessionId);
    const next = (running ?? Promise.resolve()).then(() => this.#restore(sessionId));
    const settled = next.finally(() => {
      if (this.#restoring.get(sessionId) === settled) this.#restoring.delete(sessionId);
    });
    this.#restoring.set(sessionId, settled);
    return next;
  }

  /**
   * Stores the files of sessions written here without going through a writer (an import): their
   * rows become exactly the files' records.
   */
  async upload(sessionIds: readonly string[]): Promise<void> {
    await this.#queue.storedAll("the import was not stored");
    await this.db.transaction().execute(async (tx) => {
      for (const sessionId of sessionIds) {
        await tx.deleteFrom("trace_records").where("session_id", "=", sessionId).execute();
        for (const stream of localTraceStreams(this.location, sessionId)) {
          const rows = stream.lines.map((record, i) => ({
            session_id: sessionId,
            file_index: stream.fileIndex,
            day: stream.day,
            position: i + 1,
            record,
          }));
          for (let start = 0; start < rows.length; start += BATCH_ROWS) {
            await tx
              .insertInto("trace_records")
              .values(rows.slice(start, start + BATCH_ROWS))
              .execute();
          }
        }
      }
    });
    this.#queue.forget(sessionIds);
  }

  /** Resolves once every record written so far is in the table (rejects past the store timeout). */
  settled(): Promise<void> {
    return this.#queue.storedAll("the session stays with this instance");
  }

  /** Deletes the rows of these sessions (the session was deleted). */
  async remove(sessionIds: readonly string[]): Promise<void> {
    if (sessionIds.length === 0) return;
    // Nothing of theirs may still be on its way in after the delete.
    await this.#queue.storedAll("the session's records stay in the table");
    await this.db
      .deleteFrom("trace_records")
      .where("session_id", "in", [...sessionIds])
      .execute();
    this.#queue.forget(sessionIds);
    for (const id of sessionIds) this.#known.delete(id);
  }

  /** Stops mirroring, after the queued records are stored (or CLOSE_DRAIN_MS has passed). */
  async close(): Promise<void> {
    this.#stopMirror();
    const drained = await Promise.race([
      this.#queue.drain().then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), CLOSE_DRAIN_MS).unref()),
    ]);
    if (!drained) this.logger.error("trace records were still unstored when the server stopped");
    this.#queue.abandon();
  }

  async #restore(sessionId: string): Promise<void> {
    const streams = await this.db
      .selectFrom("trace_records")
      .select(["file_index", "day", (eb) => eb.fn.countAll().as("records")])
      .where("session_id", "=", sessionId)
      .groupBy(["file_index", "day"])
      .execute();
    if (streams.length === 0) return;
    if (this.#upToDate(sessionId, streams)) return;
    const local = localTraceStreams(this.location, sessionId);
    const records = new Map(local.map((file) => [file.fileIndex, file.records]));
    for (const stream of streams) {
      const ref: TraceStreamRef = { sessionId, fileIndex: stream.file_index, day: stream.day };
      const have = local.find((file) => file.fileIndex === ref.fileIndex && file.day === ref.day);
      const count = Number(stream.records);
      if (have && have.records >= count) continue;
      if (have && have.records > 0 && (await this.#recordAt(ref, have.records)) === have.lines.at(-1)) {
        const missing = await this.#recordsAfter(ref, have.records);
        writeTraceCopy(this.location, ref, missing, "append");
        records.set(ref.fileIndex, have.records + missing.length);
      } else {
        const all = await this.#recordsAfter(ref, 0);
        writeTraceCopy(this.location, ref, all, "replace");
        records.set(ref.fileIndex, all.length);
      }
    }
    this.#remember(sessionId, records);
  }

  /** Whether every file holds, unchanged since the last restore, at least the table's rows. */
  #upToDate(sessionId: string, streams: readonly { file_index: number; records: unknown }[]): boolean {
    const known = this.#known.get(sessionId);
    if (!known) return false;
    const sizes = this.#fileSizes(sessionId);
    return streams.every((stream) => {
      const file = known.get(stream.file_index);
      return (
        file !== undefined &&
        file.records >= Number(stream.records) &&
        sizes.get(stream.file_index) === file.size
      );
    });
  }

  /** Notes each file's record count (as the restore left it) with its size now. */
  #remember(sessionId: string, records: ReadonlyMap<number, number>): void {
    const sizes = this.#fileSizes(sessionId);
    const known = new Map<number, { records: number; size: number }>();
    for (const [fileIndex, count] of records) {
      const size = sizes.get(fileIndex);
      if (size !== undefined) known.set(fileIndex, { records: count, size });
    }
    this.#known.set(sessionId, known);
  }

  /** The size of each of the session's files, by file index. */
  #fileSizes(sessionId: string): Map<number, number> {
    const sizes = new Map<number, number>();
    for (const ref of findSessionFileRefs(this.location, sessionId)) {
      try {
        sizes.set(ref.index, statSync(ref.path).size);
      } catch {
        // Removed meanwhile: not known, so read again next time.
      }
    }
    return sizes;
  }

  /** The records of one file in the table, as a query to narrow down. */
  #fileRecords(ref: TraceStreamRef) {
    return this.db
      .selectFrom("trace_records")
      .select("record")
      .where("session_id", "=", ref.sessionId)
      .where("file_index", "=", ref.fileIndex);
  }

  async #recordAt(ref: TraceStreamRef, position: number): Promise<string | undefined> {
    return (await this.#fileRecords(ref).where("position", "=", position).executeTakeFirst())?.record;
  }

  async #recordsAfter(ref: TraceStreamRef, position: number): Promise<string[]> {
    const rows = await this.#fileRecords(ref).where("position", ">", position).orderBy("position").execute();
    return rows.map((row) => row.record);
  }

  /** The subagent sessions the session's (restored) trace names. */
  #children(sessionId: string): string[] {
    let tree: SubagentNode;
    try {
      tree = subagentTree(this.location, sessionId);
    } catch (error) {
      if (error instanceof TraceError) return [];
      throw error;
    }
    return tree.children.filter((child) => !child.problem).map((child) => child.sessionId);
  }
}
