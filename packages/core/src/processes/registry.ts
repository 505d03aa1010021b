import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

// The process registry: one small JSON file per command session or job of an agent session, in
// `<scratchpad>/processes/<id>.json`, kept up to date as the process starts and ends. It is what
// lets a resumed session find the commands a crashed Penguin left running, and never mistake an
// unrelated program that later got the same pid for one of them.

/** The registry's folder inside a session's scratchpad. */
export function processRegistryDir(scratchpadDir: string): string {
  return join(scratchpadDir, "processes");
}

/** A job's output spool in the registry folder (run_command writes its output there directly). */
export function spoolFileName(id: string): string {
  return `${id}.out`;
}

const ExitSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("code"), code: z.number().int() }),
  z.object({ kind: z.literal("signal"), signal: z.string() }),
  z.object({ kind: z.literal("spawn-error"), message: z.string() }),
]);

export const ProcessRecordSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]+$/),
  origin: z.enum(["exec_command", "run_command"]),
  command: z.string(),
  cwd: z.string(),
  purpose: z.string().optional(),
  pid: z.number().int().positive().optional(),
  /** The process group: the command is its group's leader, so it equals the pid. */
  pgid: z.number().int().positive().optional(),
  /** /proc/<pid>/stat field 22 and the boot id: together they tell this process from a later one with its pid. */
  start_ticks: z.string().optional(),
  boot_id: z.string().optional(),
  started_at: z.number(),
  /** File name of the output spool in the registry folder; absent when output went through a pipe only. */
  output_file: z.string().optional(),
  /** `running` as last known; `exited` with its exit status; `interrupted`: ended while Penguin was down. */
  state: z.enum(["running", "exited", "interrupted"]),
  exit: ExitSchema.optional(),
  ended_at: z.number().optional(),
  /** Set when the pid was found to belong to another program: it is never signalled. */
  pid_reused: z.boolean().optional(),
});

export type ProcessRecord = z.infer<typeof ProcessRecordSchema>;

/**
 * Writes a record atomically (a temp file renamed over it), private to the user (0600). The
 * folder (private too) is made when the write finds it missing: a command writes its record
 * three times, and the folder is there from the first on.
 */
export function writeProcessRecord(dir: string, record: ProcessRecord): void {
  const file = join(dir, `${record.id}.json`);
  const temp = `${file}.${process.pid}.tmp`;
  const text = `${JSON.stringify(record)}\n`;
  try {
    writeFileSync(temp, text, { mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(temp, text, { mode: 0o600 });
  }
  renameSync(temp, file);
}

/** Removes a record and its spool (a session that was evicted is forgotten). */
export function removeProcessRecord(dir: string, id: string): void {
  rmSync(join(dir, `${id}.json`), { force: true });
  rmSync(join(dir, spoolFileName(id)), { force: true });
}

/** Every readable record of the folder, in id order (`cmd_2` before `cmd_10`); unreadable files are skipped. */
export function readProcessRecords(dir: string): ProcessRecord[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const records: ProcessRecord[] = [];
  for (const name of names) {
    if (!name.endsWith(".json")) continue;
    const record = readProcessRecord(dir, name.slice(0, -".json".length));
    if (record) records.push(record);
  }
  return records.sort((a, b) => idNumber(a.id) - idNumber(b.id) || a.id.localeCompare(b.id));
}

/** The record of one id, or undefined when it has none that is readable and names that id. */
export function readProcessRecord(dir: string, id: string): ProcessRecord | undefined {
  // An id from elsewhere (a trace) is never joined into a path outside the folder.
  if (!ProcessRecordSchema.shape.id.safeParse(id).success) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(join(dir, `${id}.json`), "utf8"));
  } catch {
    return undefined;
  }
  const record = ProcessRecordSchema.safeParse(parsed);
  return record.success && record.data.id === id ? record.data : undefined;
}

/** The number at the end of an id (`cmd_12` → 12), 0 without one. */
export function idNumber(id: string): number {
  const match = /(\d+)$/.exec(id);
  return match ? Number(match[1]) : 0;
}
