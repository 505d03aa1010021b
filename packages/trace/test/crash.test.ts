import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, existsSync, fstatSync, openSync, readSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type OmniMessage, userText } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { findSessionFiles, readSession, rebuildContext, TraceWriter } from "../src/index.js";
import { tempLocation } from "./helpers.js";

const CHILD = fileURLToPath(new URL("./fixtures/append-loop.mjs", import.meta.url));
const DIST = fileURLToPath(new URL("../dist/index.js", import.meta.url));
const BIG_RECORD_BYTES = 4 * 1024 * 1024;
const MAX_RECORDS = 60;
const ATTEMPTS = 4;

/** The last byte of the file is not a newline: a write(2) is in progress right now. */
function midWrite(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const size = fstatSync(fd).size;
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function waitForLine(child: ChildProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk) => {
      out += String(chunk);
      if (out.includes(text)) resolve();
    });
    child.once("exit", (code) => reject(new Error(`child exited (${code}) before "${text}"`)));
  });
}

/** Runs the appending child and SIGKILLs it, inside a write when the polling catches one. */
async function killWhileAppending(loc: ReturnType<typeof tempLocation>, sessionId: string): Promise<boolean> {
  const child = spawn(
    process.execPath,
    [CHILD, loc.tracesDir, loc.scratchpadRoot, sessionId, String(BIG_RECORD_BYTES), String(MAX_RECORDS)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const started = waitForLine(child, "started");
  let done = false;
  child.stdout?.on("data", (chunk) => {
    if (String(chunk).includes("done")) done = true;
  });
  await started;
  const [path] = findSessionFiles(loc, sessionId);
  let caught = false;
  // Busy-poll the file's end; yield to the event loop now and then to see "done".
  for (let spins = 0; !caught && !done && spins < 200_000; spins++) {
    if (midWrite(path)) {
      child.kill("SIGKILL");
      caught = true;
    } else if (spins % 500 === 0) {
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  if (!caught) child.kill("SIGKILL");
  await exited;
  return caught;
}

const seqOf = (record: OmniMessage) => Number((record.payload as { text: string }).text.split(":")[0]);

describe("a writer killed with SIGKILL", () => {
  it("leaves a trace that reads, repairs and takes new appends in the parent", async () => {
    // The child runs the built writer (Node 20 cannot load TypeScript); turbo builds before tests.
    expect(existsSync(DIST), `run the build first: ${DIST} is missing`).toBe(true);
    let sawTornLine = false;
    for (let attempt = 0; attempt < ATTEMPTS && !sawTornLine; attempt++) {
      const loc = tempLocation();
      const sessionId = `killed-${attempt}`;
      const caughtMidWrite = await killWhileAppending(loc, sessionId);

      const before = readSession(loc, sessionId);
      const texts = before.records.filter((r) => r.type === "model_msg");
      // Every record that made it is whole and in order: 0, 1, 2, ... with no gap.
      expect(texts.map(seqOf)).toEqual(texts.map((_, i) => i));
      expect(before.records[0].type).toBe("session_meta");
      // At most the last line is damaged, and then it is reported as torn.
      expect(before.diagnostics.length).toBeLessThanOrEqual(1);
      const torn = before.diagnostics[0];
      if (torn) expect(torn.kind).toBe("torn_last_line");
      sawTornLine ||= torn !== undefined;
      if (caughtMidWrite && !torn) {
        // The kill landed just after the write finished: nothing torn, nothing lost.
        expect(texts.length).toBeGreaterThan(0);
      }

      const resumed = rebuildContext(before.records);
      expect(resumed.messages).toHaveLength(texts.length);

      const writer = TraceWriter.open(loc, sessionId);
      writer.append(userText("after the kill"));
      writer.close();
      const after = readSession(loc, sessionId);
      expect(after.records).toHaveLength(before.records.length + 1);
      expect(after.records.at(-1)?.payload).toMatchObject({ text: "after the kill" });
      expect(after.diagnostics.map((d) => d.kind)).toEqual(torn ? ["malformed_line"] : []);
      expect(rebuildContext(after.records).messages).toHaveLength(texts.length + 1);
    }
    // Not asserted: whether a kill landed inside a write depends on timing. Logged for the record.
    console.log(`SIGKILL test: torn last line observed = ${sawTornLine}`);
  }, 120_000);
});
