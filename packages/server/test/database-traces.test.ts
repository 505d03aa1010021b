import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assistantText, sessionMeta, userText } from "@penguin/protocol";
import { readSession, type TraceLocation, TraceWriter } from "@penguin/trace";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { migrateToLatest, openDatabase, serverDatabaseFile } from "../src/index.js";
import { DatabaseTraces } from "../src/traces/database-traces.js";
import { tempDataRoot, testDatabaseFor } from "./helpers.js";

// Two instances' data roots over one database: what one writes, the other's files are brought up
// to, by appending what they lack or, when they disagree with the table, by replacing them.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
});

const silent = pino({ level: "silent" });

async function twoInstances() {
  const root = await tempDataRoot();
  const db = await openDatabase((await testDatabaseFor(root)) ?? serverDatabaseFile(root));
  await migrateToLatest(db);
  closers.push(() => db.destroy());
  const place = async (): Promise<TraceLocation> => {
    const dir = await tempDataRoot();
    return { tracesDir: join(dir, "traces"), scratchpadRoot: join(dir, "scratchpad") };
  };
  const [a, b] = [await place(), await place()];
  const onA = new DatabaseTraces(db, silent, a);
  const onB = new DatabaseTraces(db, silent, b);
  closers.push(
    () => onA.close(),
    () => onB.close(),
  );
  return { db, a, b, onA, onB };
}

const meta = (id: string) =>
  sessionMeta({ session_id: id, provider: "fake", model_id: "m", system_prompt: "test", workspace: "/w" });

describe("traces kept in the database", () => {
  it("brings another data root's files up to what was written: whole, then the new records", async () => {
    const { a, b, onB } = await twoInstances();
    const writer = TraceWriter.create(a, "s1");
    writer.append(meta("s1"));
    writer.append(userText("first question"));
    await writer.stored();
    await onB.restoreTree("s1");
    expect(readSession(b, "s1").records).toEqual(readSession(a, "s1").records);

    writer.append(assistantText("first answer"));
    writer.rotate();
    writer.append(meta("s1"));
    writer.append(userText("after the compaction"));
    await writer.stored();
    writer.close();
    await onB.restoreTree("s1");
    const onBoth = readSession(b, "s1");
    expect(onBoth.records).toEqual(readSession(a, "s1").records);
    expect(onBoth.files).toHaveLength(2);
    expect(onBoth.diagnostics).toEqual([]);
  });

  it("replaces a file that disagrees with the table, and a removed session leaves no rows", async () => {
    const { db, a, b, onB } = await twoInstances();
    const writer = TraceWriter.create(a, "s2");
    writer.append(meta("s2"));
    writer.append(userText("kept"));
    await writer.stored();
    await onB.restoreTree("s2");
    // B's copy gets a record the table never had (a crash of an instance that wrote it first).
    const [file] = readSession(b, "s2").files;
    const lines = readFileSync(file ?? "", "utf8")
      .trimEnd()
      .split("\n");
    writeFileSync(file ?? "", `${[lines[0], JSON.stringify(userText("never stored"))].join("\n")}\n`);
    writer.append(assistantText("stored"));
    await writer.stored();
    writer.close();
    await onB.restoreTree("s2");
    expect(JSON.stringify(readSession(b, "s2").records)).not.toContain("never stored");
    expect(readSession(b, "s2").records).toEqual(readSession(a, "s2").records);

    await onB.remove(["s2"]);
    const rows = await db
      .selectFrom("trace_records")
      .select("position")
      .where("session_id", "=", "s2")
      .execute();
    expect(rows).toEqual([]);
  });

  it("two restores of one session at once append its new records once", async () => {
    const { a, b, onB } = await twoInstances();
    const writer = TraceWriter.create(a, "s3");
    writer.append(meta("s3"));
    await writer.stored();
    await onB.restoreTree("s3");
    for (let n = 0; n < 20; n++) writer.append(userText(`message ${n}`));
    await writer.stored();
    writer.close();
    await Promise.all([onB.restoreTree("s3"), onB.restoreTree("s3"), onB.restore("s3")]);
    expect(readSession(b, "s3").records).toHaveLength(21);
  });
});
