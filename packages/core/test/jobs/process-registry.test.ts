import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { IdentityCheck } from "../../src/processes/process-identity.js";
import { ProcessManager } from "../../src/processes/process-manager.js";
import {
  REGISTRY_FILE,
  readProcessRecord,
  readProcessRecords,
  removeProcessRecord,
} from "../../src/processes/registry.js";
import { describeRetainedProcess } from "../../src/processes/retained-processes.js";
import { CommandSession } from "../../src/processes/session.js";
import { alive, waitUntil } from "./support.js";

// The process registry as a user's session depends on it: each command recorded with what
// identifies its process, a job's output kept in a private file, and a second manager on the same
// registry (a resumed session) finding the commands again.

const managers: ProcessManager[] = [];
const roots: string[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.disposeAll()));
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function registry(): { dir: string; cwd: string; home: string } {
  const root = mkdtempSync(join(tmpdir(), "penguin-registry-"));
  roots.push(root);
  const cwd = join(root, "workspace");
  mkdirSync(cwd);
  return { dir: join(root, "scratchpad", "processes"), cwd, home: root };
}

/** A manager whose shells get a HOME without dotfiles (never the machine's). */
function manager(dir: string, home: string): ProcessManager {
  const created = new ProcessManager({ registryDir: dir, baseEnv: { PATH: process.env.PATH, HOME: home } });
  managers.push(created);
  return created;
}

function started(result: ReturnType<ProcessManager["start"]>): CommandSession {
  if (!result.ok) throw new Error(result.error);
  return result.session;
}

/** Field 22 of /proc/<pid>/stat. */
function startTicks(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? "";
}

/** The record of a `make` run_command (`cmd_1`) as a session that crashed left it. */
function makeRecord(home: string, fields: Record<string, unknown>): Record<string, unknown> {
  return { id: "cmd_1", origin: "run_command", command: "make", cwd: home, started_at: 1, ...fields };
}

/** Writes the registry's file with these lines, as a session that crashed left it. */
function writeRegistryLines(dir: string, lines: string[]): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, REGISTRY_FILE), lines.map((line) => `${line}\n`).join(""));
}

function writeMakeRecord(dir: string, home: string, fields: Record<string, unknown>): void {
  writeRegistryLines(dir, [JSON.stringify(makeRecord(home, fields))]);
}

/** The registry's file, one parsed object a line. */
const registryLines = (dir: string) =>
  readFileSync(join(dir, REGISTRY_FILE), "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** An id's record as the registry has it now (its latest line). */
const record = (dir: string, id: string) => {
  const found = readProcessRecord(dir, id);
  if (found === undefined) throw new Error(`the registry has no record of ${id}`);
  return found;
};

describe.skipIf(process.platform !== "linux")("process registry", () => {
  it("records a job with its pid, process group, start time and boot id, and spools its output to a private file as it arrives", async () => {
    const { dir, cwd, home } = registry();
    const processes = manager(dir, home);
    const seen: string[] = [];
    const job = started(
      processes.start({
        cmd: "echo hello; sleep 30",
        cwd,
        purpose: "greet",
        origin: "run_command",
        beforeStart: (id) => seen.push(id),
      }),
    );
    expect(seen).toEqual(["cmd_1"]);
    const pid = job.pid as number;
    expect(record(dir, "cmd_1")).toMatchObject({
      id: "cmd_1",
      origin: "run_command",
      command: "echo hello; sleep 30",
      purpose: "greet",
      pid,
      pgid: pid,
      start_ticks: startTicks(pid),
      boot_id: readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim(),
      output_file: "cmd_1.out",
      state: "running",
    });
    await waitUntil(
      () => readFileSync(join(dir, "cmd_1.out"), "utf8") === "hello\n",
      "the spool to hold the output",
    );
    await waitUntil(() => job.lineWindow({ limit: 5 }).lines.includes("hello"), "the job to show its output");
    expect(statSync(join(dir, REGISTRY_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "cmd_1.out")).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);

    await processes.kill(job.id);
    await waitUntil(() => record(dir, "cmd_1").state === "exited", "the end to be recorded");
    expect(record(dir, "cmd_1").exit).toEqual({ kind: "signal", signal: "SIGTERM" });
    // One line a change, appended: before it starts (no pid), once it runs, when it ends.
    expect(registryLines(dir).map((line) => [line.id, line.state, line.pid])).toEqual([
      ["cmd_1", "running", undefined],
      ["cmd_1", "running", pid],
      ["cmd_1", "exited", pid],
    ]);
    expect(readdirSync(dir).sort()).toEqual(["cmd_1.out", REGISTRY_FILE]);
  });

  it("keeps following a job's spool after its shell exits while a child it left in its group still prints", async () => {
    const { dir, cwd, home } = registry();
    const processes = manager(dir, home);
    const job = started(
      processes.start({ cmd: "(sleep 0.3; echo late) & echo early", cwd, origin: "run_command" }),
    );
    await waitUntil(() => job.finished, "the shell to exit");
    await waitUntil(() => job.lineWindow({ limit: 5 }).lines.includes("late"), "the child's later output");
    expect(job.lineWindow({ limit: 5 }).lines).toEqual(["early", "late"]);
  });

  it("records an exec_command session without a spool: its output goes through a pipe", async () => {
    const { dir, cwd, home } = registry();
    const processes = manager(dir, home);
    const session = started(processes.start({ cmd: "echo piped", cwd }));
    await waitUntil(() => session.finished, "the command to finish");
    expect(session.takeUnread()).toBe("piped\n");
    expect(record(dir, "cmd_1")).toMatchObject({
      origin: "exec_command",
      state: "exited",
      exit: { kind: "code", code: 0 },
    });
    expect(record(dir, "cmd_1").output_file).toBeUndefined();
  });

  it("makes the registry folder private when a command finds it missing, the first time and after it was removed", async () => {
    const { dir, cwd, home } = registry();
    const processes = manager(dir, home);
    const first = started(processes.start({ cmd: "true", cwd }));
    await waitUntil(() => first.finished, "the first command to finish");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    rmSync(dir, { recursive: true });
    const second = started(processes.start({ cmd: "true", cwd }));
    await waitUntil(() => second.finished, "the second command to finish");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, REGISTRY_FILE)).mode & 0o777).toBe(0o600);
    expect(record(dir, "cmd_2")).toMatchObject({ state: "exited", exit: { kind: "code", code: 0 } });
  });

  it("a second manager on the same registry (a resumed session) re-attaches a running job, keeps an exit code, and goes on with the next id", async () => {
    const { dir, cwd, home } = registry();
    const before = manager(dir, home);
    const done = started(before.start({ cmd: "echo done; exit 4", cwd, origin: "run_command" }));
    await waitUntil(() => done.finished, "the first job to finish");
    const running = started(before.start({ cmd: "echo up; sleep 30", cwd, origin: "run_command" }));
    await waitUntil(() => readFileSync(join(dir, "cmd_2.out"), "utf8") === "up\n", "the second job to print");

    const after = manager(dir, home);
    const ended = after.get("cmd_1");
    expect(ended?.exit).toEqual({ kind: "code", code: 4 });
    expect(ended?.canSignal).toBe(false);
    expect(ended?.lineWindow({ limit: 5 }).lines).toEqual(["done"]);
    const adopted = after.get("cmd_2");
    expect(adopted?.status).toBe("running");
    expect(adopted?.canSignal).toBe(true);
    expect(adopted?.pid).toBe(running.pid);
    expect(adopted?.takeUnread()).toBe("up\n");
    const stdin = await adopted?.write("x\n");
    expect(stdin).toMatchObject({ ok: false, error: expect.stringContaining("stdin is not connected") });
    expect(adopted?.closeStdin()).toMatchObject({
      ok: false,
      error: expect.stringContaining("stdin is not connected"),
    });
    expect(started(after.start({ cmd: "true", cwd })).id).toBe("cmd_3");

    // Stopping it through the new manager ends the process; its end is seen by polling.
    await after.kill("cmd_2");
    await waitUntil(() => adopted?.exit !== undefined, "the re-attached job's end to be seen");
    expect(adopted?.exit).toEqual({ kind: "unknown", reason: "adopted" });
    expect(alive(running.pid as number)).toBe(false);
    expect(record(dir, "cmd_2")).toMatchObject({ state: "exited" });
  });

  it("a re-attached job whose pid is found reused ends as gone, and its pid is never signalled afterwards", async () => {
    // Another program, leading a process group of its own under the pid the job had.
    const stranger = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
    const pid = stranger.pid as number;
    try {
      let now: IdentityCheck = "running";
      const job = new CommandSession({
        id: "cmd_1",
        cmd: "npm run dev",
        cwd: "/",
        origin: "run_command",
        startedAt: Date.now(),
        pid,
        unreadBufferChars: 100,
        check: () => now,
      });
      expect(job.canSignal).toBe(true);
      now = "reused";
      await waitUntil(() => job.exit !== undefined, "the reuse to be seen");
      expect(job.exit).toEqual({ kind: "unknown", reason: "pid-reused" });
      expect(job.canSignal).toBe(false);
      // What closing the session does to each job: the other program is left alone.
      await job.terminate(100);
      await job.forceKill(100);
      expect(alive(pid)).toBe(true);
    } finally {
      stranger.kill("SIGKILL");
    }
  });

  it("a command recorded as starting but never with a pid (a crash in between) is interrupted, and never signalled", () => {
    const { dir, home } = registry();
    writeMakeRecord(dir, home, { state: "running" });
    const job = manager(dir, home).get("cmd_1");
    expect(job?.exit).toEqual({ kind: "unknown", reason: "interrupted" });
    expect(job?.canSignal).toBe(false);
    expect(record(dir, "cmd_1")).toMatchObject({ state: "interrupted" });
  });

  it("describes one recorded command by its id, and nothing for an id it lacks", async () => {
    const { dir, cwd, home } = registry();
    const processes = manager(dir, home);
    const session = started(processes.start({ cmd: "exit 2", cwd }));
    await waitUntil(() => record(dir, "cmd_1").state === "exited", "the end to be recorded");
    const scratchpad = join(dir, "..");
    expect(describeRetainedProcess(scratchpad, session.id)).toBe(
      'cmd_1 (exec_command) "exit 2": exited with exit code 2; output not kept (it went through a pipe)',
    );
    expect(describeRetainedProcess(scratchpad, "cmd_9")).toBeUndefined();
  });

  it("a resumed job whose spool is longer than the output buffer holds its newest output, read from the end of the file", () => {
    const { dir, home } = registry();
    writeMakeRecord(dir, home, {
      output_file: "cmd_1.out",
      state: "exited",
      exit: { kind: "code", code: 0 },
    });
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i + 1}`);
    writeFileSync(join(dir, "cmd_1.out"), `${lines.join("\n")}\n`);
    const resumed = new ProcessManager({ registryDir: dir, unreadBufferChars: 100, baseEnv: { HOME: home } });
    managers.push(resumed);
    const held = resumed.get("cmd_1")?.lineWindow({ limit: 5 }).lines ?? [];
    expect(held.at(-1)).toBe("line 2000");
    expect(held).not.toContain("line 1");
    expect(resumed.get("cmd_1")?.takeUnread().length).toBeLessThan(200);
    // Only the end of the file was read (at most 4 bytes per held character), not all 17 KB of it.
    expect(resumed.get("cmd_1")?.outputChars).toBeLessThanOrEqual(400);
  });

  it("skips lines and files that are not valid records instead of failing the session", () => {
    const { dir, cwd, home } = registry();
    writeRegistryLines(dir, [
      "{not json",
      JSON.stringify({ id: "cmd_8", state: "sleeping" }),
      JSON.stringify([1, 2]),
      JSON.stringify({ id: "../../etc/passwd", origin: "run_command" }),
    ]);
    writeFileSync(join(dir, "cmd_7.json"), "{not json");
    writeFileSync(join(dir, "cmd_9.json"), JSON.stringify({ id: "cmd_1", origin: "run_command" }));
    expect(readProcessRecords(dir)).toEqual([]);
    expect(readProcessRecord(dir, "../../etc/passwd")).toBeUndefined();
    const processes = manager(dir, home);
    expect(processes.list()).toEqual([]);
    expect(started(processes.start({ cmd: "true", cwd })).id).toBe("cmd_1");
  });

  it("a line torn by a crash is skipped, and the next session rewrites the file whole before it appends", async () => {
    const { dir, cwd, home } = registry();
    const exited = JSON.stringify(
      makeRecord(home, { pid: 999_999, state: "exited", exit: { kind: "code", code: 3 } }),
    );
    // Two lines of cmd_1 (the later wins), then cmd_2's record cut off mid-line by a crash.
    const starting = JSON.stringify(makeRecord(home, { state: "running" }));
    const torn = JSON.stringify(makeRecord(home, { id: "cmd_2", state: "running" })).slice(0, 40);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, REGISTRY_FILE), `${starting}\n${exited}\n${torn}`);
    expect(readProcessRecords(dir).map((found) => [found.id, found.state])).toEqual([["cmd_1", "exited"]]);

    const processes = manager(dir, home);
    expect(processes.get("cmd_1")?.exit).toEqual({ kind: "code", code: 3 });
    // Rewritten whole (every line parses), without the torn record; the restore may add cmd_1's end again.
    expect(registryLines(dir)[0]).toEqual(JSON.parse(exited));
    expect(registryLines(dir).map((line) => line.id)).not.toContain("cmd_2");
    expect(statSync(join(dir, REGISTRY_FILE)).mode & 0o777).toBe(0o600);
    const next = started(processes.start({ cmd: "true", cwd }));
    await waitUntil(() => next.finished, "the command to finish");
    expect(record(dir, next.id)).toMatchObject({ state: "exited", exit: { kind: "code", code: 0 } });
    expect(registryLines(dir).every((line) => typeof line.id === "string")).toBe(true);
  });

  it("reads an earlier version's registry (a file per record) and folds it into its file", () => {
    const { dir, home } = registry();
    mkdirSync(dir, { recursive: true });
    const old = makeRecord(home, {
      pid: 999_999,
      output_file: "cmd_1.out",
      state: "exited",
      exit: { kind: "code", code: 0 },
    });
    writeFileSync(join(dir, "cmd_1.json"), JSON.stringify(old));
    writeFileSync(join(dir, "cmd_1.out"), "built\n");
    expect(record(dir, "cmd_1")).toMatchObject({ command: "make", state: "exited" });

    const processes = manager(dir, home);
    expect(processes.get("cmd_1")?.lineWindow({ limit: 5 }).lines).toEqual(["built"]);
    expect(readdirSync(dir).sort()).toEqual(["cmd_1.out", REGISTRY_FILE]);
    expect(registryLines(dir)[0]).toEqual(old);
  });

  it("a forgotten command's record and spool are gone, and a later reading does not bring them back", () => {
    const { dir, home } = registry();
    writeRegistryLines(dir, [
      JSON.stringify(
        makeRecord(home, { output_file: "cmd_1.out", state: "exited", exit: { kind: "code", code: 0 } }),
      ),
    ]);
    writeFileSync(join(dir, "cmd_1.out"), "x\n");
    // What an eviction does to the registry (ProcessJournal.forget).
    removeProcessRecord(dir, "cmd_1", join(dir, "cmd_1.out"));
    expect(readProcessRecords(dir)).toEqual([]);
    expect(readdirSync(dir)).toEqual([REGISTRY_FILE]);
    expect(manager(dir, home).list()).toEqual([]);
  });

  it("an evicted job's spool is deleted with its record; an evicted exec_command session leaves the others' files", async () => {
    const { dir, cwd, home } = registry();
    const processes = new ProcessManager({
      registryDir: dir,
      baseEnv: { PATH: process.env.PATH, HOME: home },
      maxSessions: 2,
    });
    managers.push(processes);
    const job = started(processes.start({ cmd: "echo spooled", cwd, origin: "run_command" }));
    await waitUntil(() => job.finished, "the job to finish");
    const piped = started(processes.start({ cmd: "echo piped", cwd }));
    await waitUntil(() => piped.finished, "the command to finish");
    expect(readdirSync(dir).sort()).toEqual([`${job.id}.out`, REGISTRY_FILE]);
    // Full: the job (least recently used) makes room.
    const third = started(processes.start({ cmd: "echo third", cwd }));
    await waitUntil(() => third.finished, "the third command to finish");
    expect(readdirSync(dir)).toEqual([REGISTRY_FILE]);
    expect(readProcessRecords(dir).map((found) => found.id)).toEqual([piped.id, third.id]);
    // The piped session goes next; the spool-less eviction removes no file of anyone.
    const fourth = started(processes.start({ cmd: "echo fourth", cwd, origin: "run_command" }));
    await waitUntil(() => fourth.finished, "the fourth command to finish");
    expect(readdirSync(dir).sort()).toEqual([`${fourth.id}.out`, REGISTRY_FILE]);
    expect(readProcessRecords(dir).map((found) => found.id)).toEqual([third.id, fourth.id]);
  });

  it("a forgotten command's record in an earlier version's file stays forgotten, and the next process deletes the file", () => {
    const { dir, home } = registry();
    const old = makeRecord(home, { state: "exited", exit: { kind: "code", code: 0 } });
    writeRegistryLines(dir, [JSON.stringify(old)]);
    // Left behind where the registry could not be rewritten when the session was resumed.
    writeFileSync(join(dir, "cmd_1.json"), JSON.stringify(old));
    removeProcessRecord(dir, "cmd_1", undefined);
    expect(readProcessRecords(dir)).toEqual([]);
    expect(manager(dir, home).list()).toEqual([]);
    expect(readdirSync(dir)).toEqual([REGISTRY_FILE]);
  });
});
