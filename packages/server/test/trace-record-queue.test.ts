import { sql } from "kysely";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { migrateToLatest, openDatabase, serverDatabaseFile } from "../src/index.js";
import { TraceRecordQueue } from "../src/traces/trace-record-queue.js";
import { tempDataRoot, testDatabaseFor } from "./helpers.js";

// The queue that stores trace records in the database: in order, each file's positions going on
// where its rows end, and a database that fails is retried until it takes the records, while a
// tool waiting for them is told why within the timeout instead of hanging.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
});

async function database() {
  const root = await tempDataRoot();
  const db = await openDatabase((await testDatabaseFor(root)) ?? serverDatabaseFile(root));
  await migrateToLatest(db);
  closers.push(() => db.destroy());
  return db;
}

const ref = (sessionId: string, fileIndex = 1) => ({ sessionId, fileIndex, day: "2026-12-06" });
const silent = pino({ level: "silent" });

async function rowsOf(db: Awaited<ReturnType<typeof database>>, sessionId: string) {
  return db
    .selectFrom("trace_records")
    .select(["file_index", "position", "record"])
    .where("session_id", "=", sessionId)
    .orderBy("file_index")
    .orderBy("position")
    .execute();
}

describe("TraceRecordQueue", () => {
  it("stores records in order, numbers each file from its last row, and says when they are in", async () => {
    const db = await database();
    await db
      .insertInto("trace_records")
      .values({ session_id: "s1", file_index: 1, day: "2026-12-06", position: 1, record: '{"n":0}' })
      .execute();
    const queue = new TraceRecordQueue(db, silent);
    for (let n = 1; n <= 3; n++) queue.appended(ref("s1"), `{"n":${n}}`);
    queue.appended(ref("s1", 2), '{"n":"second file"}');
    queue.appended(ref("s2"), '{"n":"other session"}');
    await queue.stored("s1");
    expect((await rowsOf(db, "s1")).map((row) => [row.file_index, row.position, row.record])).toEqual([
      [1, 1, '{"n":0}'],
      [1, 2, '{"n":1}'],
      [1, 3, '{"n":2}'],
      [1, 4, '{"n":3}'],
      [2, 1, '{"n":"second file"}'],
    ]);
    await queue.stored("never-written");
  });

  it("retries a database that fails; a waiter past the timeout is told why, a later one gets its records in", async () => {
    const db = await database();
    await sql`drop table trace_records`.execute(db);
    const queue = new TraceRecordQueue(db, silent, 300);
    queue.appended(ref("s3"), '{"n":1}');
    await expect(queue.stored("s3")).rejects.toThrow(
      /trace of session s3 could not be stored in the database within 0.3 s \(.*trace_records.*\); the call was not run/,
    );
    // The table comes back (the database is reachable again): the queued record goes in.
    await sql`create table trace_records (session_id text not null, file_index integer not null, day text not null, position integer not null, record text not null, primary key (session_id, file_index, position))`.execute(
      db,
    );
    queue.appended(ref("s3"), '{"n":2}');
    await queue.drain();
    expect((await rowsOf(db, "s3")).map((row) => row.record)).toEqual(['{"n":1}', '{"n":2}']);
  });

  it("at a stop, a database that fails ends the retries: the waiters are told, the queue is given up", async () => {
    const db = await database();
    await sql`drop table trace_records`.execute(db);
    const queue = new TraceRecordQueue(db, silent, 60_000);
    queue.appended(ref("s4"), '{"n":1}');
    const waiting = queue.stored("s4");
    queue.abandon();
    await expect(waiting).rejects.toThrow(/the server stopped before the trace records were stored/);
    await queue.drain();
  });
});
