import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { currentBootId, identityOf } from "../../src/processes/process-identity.js";
import {
  HOLDER_FILE,
  holdSession,
  SessionHeldError,
  sessionHolder,
} from "../../src/processes/session-holder.js";
import { alive, waitUntil } from "./support.js";

// The holder file of a session: one process at a time has it open. Other processes are real
// (a `sleep` whose identity a holder file names), so the liveness checks are the real ones.

const dirs: string[] = [];
const children: number[] = [];
afterEach(() => {
  for (const pid of children.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratchpad(): string {
  const dir = mkdtempSync(join(tmpdir(), "penguin-holder-"));
  dirs.push(dir);
  return join(dir, "scratchpad", "s1");
}

/** A holder file naming another running process (a real one), as if it had the session open. */
async function heldByAnother(dir: string, startTicks?: string): Promise<number> {
  const child = spawn("sleep", ["60"], { stdio: "ignore" });
  const pid = child.pid as number;
  children.push(pid);
  await waitUntil(() => identityOf(pid) !== undefined, "the other process to start");
  const identity = identityOf(pid)!;
  holdSession(dir, "s1")();
  writeFileSync(
    join(dir, HOLDER_FILE),
    JSON.stringify({
      ...identity,
      startTicks: startTicks ?? identity.startTicks,
      since: "2026-12-03T10:00:00.000Z",
    }),
  );
  return pid;
}

describe("a session's holder", () => {
  it("is a private file naming this process while held, and gone once released", () => {
    const dir = scratchpad();
    const release = holdSession(dir, "s1");
    const file = join(dir, HOLDER_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const info = JSON.parse(readFileSync(file, "utf8"));
    expect(info).toMatchObject({ pid: process.pid, bootId: currentBootId() });
    // This process is not "another" holder.
    expect(sessionHolder(dir)).toBeUndefined();
    release();
    expect(existsSync(file)).toBe(false);
  });

  it("held twice in one process, stays held until both let go", () => {
    const dir = scratchpad();
    const first = holdSession(dir, "s1");
    const second = holdSession(dir, "s1");
    first();
    first();
    expect(existsSync(join(dir, HOLDER_FILE))).toBe(true);
    second();
    expect(existsSync(join(dir, HOLDER_FILE))).toBe(false);
  });

  it("refuses while another running process holds it, naming the process", async () => {
    const dir = scratchpad();
    const pid = await heldByAnother(dir);
    expect(sessionHolder(dir)?.pid).toBe(pid);
    let refused: unknown;
    try {
      holdSession(dir, "s1");
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(SessionHeldError);
    expect(String(refused)).toContain(
      `session s1 is open in another process (pid ${pid}, since 2026-12-03T10:00:00.000Z)`,
    );
    // Its file is left as it was.
    expect(JSON.parse(readFileSync(join(dir, HOLDER_FILE), "utf8")).pid).toBe(pid);
  });

  it("takes over from a holder that ended, whose pid now names another program, or whose file is unreadable", async () => {
    const dir = scratchpad();
    const ended = await heldByAnother(dir);
    process.kill(ended, "SIGKILL");
    await waitUntil(() => !alive(ended), "the holder to end");
    expect(sessionHolder(dir)).toBeUndefined();
    holdSession(dir, "s1")();

    // A running process whose start time differs from the recorded one is not the holder.
    await heldByAnother(dir, "1");
    expect(sessionHolder(dir)).toBeUndefined();
    holdSession(dir, "s1")();

    writeFileSync(join(dir, HOLDER_FILE), "{ torn");
    const release = holdSession(dir, "s1");
    expect(JSON.parse(readFileSync(join(dir, HOLDER_FILE), "utf8")).pid).toBe(process.pid);
    release();
  });
});
