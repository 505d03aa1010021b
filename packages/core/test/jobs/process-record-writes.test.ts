import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type ProcessRecord,
  readProcessRecord,
  readProcessRecords,
  writeProcessRecord,
} from "../../src/processes/registry.js";

// A command's record is rewritten as it starts, runs and ends: in place over the file's first
// bytes (one write), or through a temporary file when it is too long for that. Either way a
// reader gets exactly the last record written, and the file stays private.

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function registryDir(): string {
  const root = mkdtempSync(join(tmpdir(), "penguin-records-"));
  roots.push(root);
  return join(root, "processes");
}

const startingRecord: ProcessRecord = {
  id: "cmd_1",
  origin: "exec_command",
  command: "sleep 1; echo a fairly long command line to make the first record the longest one",
  cwd: "/tmp/workspace",
  purpose: "wait, then say something",
  started_at: 1_700_000_000_000,
  state: "running",
};

describe("process record writes", () => {
  it("each state of a command replaces the last whole, also when the new record is shorter", () => {
    const dir = registryDir();
    writeProcessRecord(dir, startingRecord);
    expect(readProcessRecord(dir, "cmd_1")).toEqual(startingRecord);
    const running = { ...startingRecord, pid: 4242, pgid: 4242, start_ticks: "123", boot_id: "boot" };
    writeProcessRecord(dir, running);
    expect(readProcessRecord(dir, "cmd_1")).toEqual(running);
    const shorter: ProcessRecord = {
      id: "cmd_1",
      origin: "exec_command",
      command: "true",
      cwd: "/",
      started_at: 1,
      state: "exited",
      exit: { kind: "code", code: 0 },
    };
    writeProcessRecord(dir, shorter);
    expect(readProcessRecords(dir)).toEqual([shorter]);
    const file = join(dir, "cmd_1.json");
    // The old, longer record is covered with spaces: one line, nothing of it left.
    const text = readFileSync(file, "utf8");
    expect(text.trimEnd()).toBe(JSON.stringify(shorter));
    expect(text.split("\n")).toHaveLength(2);
    expect(text).not.toContain("fairly long");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir)).toEqual(["cmd_1.json"]);
  });

  it("a record too long to write in place goes through a temporary file, and can be followed by a short one", () => {
    const dir = registryDir();
    const long = { ...startingRecord, command: `echo ${"x".repeat(6000)}` };
    writeProcessRecord(dir, long);
    expect(readProcessRecord(dir, "cmd_1")).toEqual(long);
    expect(readdirSync(dir)).toEqual(["cmd_1.json"]);
    const ended: ProcessRecord = { ...long, state: "exited", exit: { kind: "signal", signal: "SIGTERM" } };
    writeProcessRecord(dir, ended);
    expect(readProcessRecord(dir, "cmd_1")).toEqual(ended);
    writeProcessRecord(dir, startingRecord);
    expect(readProcessRecord(dir, "cmd_1")).toEqual(startingRecord);
    // Not padded to the long record's length: written whole to a new file.
    expect(readFileSync(join(dir, "cmd_1.json"), "utf8")).toBe(`${JSON.stringify(startingRecord)}\n`);
    expect(statSync(join(dir, "cmd_1.json")).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(["cmd_1.json"]);
  });
});
