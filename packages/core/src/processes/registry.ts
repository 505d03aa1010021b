import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { onFirstUse } from "@penguin/protocol";
import { z } from "zod";

// The process registry: a record per command session or job of an agent session, kept up to date
// as the process starts and ends, in `<scratchpad>/processes/records.jsonl`. It is what lets a
// resumed session find the commands a crashed Penguin left running, and never mistake an unrelated
// program that later got the same pid for one of them.
//
// Each change of a record is one JSON line appended to the file (the last line of an id wins), not
// a file rewritten: a command changes its record three times, and on ext4 creating the temporary
// file of an atomic rewrite cost some 0.45 ms each time, an append 0.03 ms (measured on this
// project's 2-core machine), on the main thread of every round. A line is written with one
// `write` to a file opened for appending, so a crash leaves at most the last line torn, which a
// read skips; the next process to open the registry (its ProcessManager restores it first)
// rewrites it whole, one line per record, before it appends. Earlier versions kept one file per
// record (`<id>.json`); those are still read, and folded into the file at that rewrite.

/** The registry's folder inside a session's scratchpad. */
export function processRegistryDir(scratchpadDir: string): string {
  return join(scratchpadDir, "processes");
}

/** A job's output spool in the registry folder (run_command writes its output there directly). */
export function spoolFileName(id: string): string {
  return `${id}.out`;
}

/** The schema of a record, built when a registry is first read (a session's start reads none). */
const processRecordSchemas = onFirstUse(() => {
  const ExitSchema = z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("code"), code: z.number().int() }),
    z.object({ kind: z.literal("signal"), signal: z.string() }),
    z.object({ kind: z.literal("spawn-error"), message: z.string() }),
  ]);

  const ProcessRecordSchema = z.object({
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
  return { ProcessRecordSchema };
});
type Schemas = ReturnType<typeof processRecordSchemas>;

export type ProcessRecord = z.infer<Schemas["ProcessRecordSchema"]>;

/** The registry's file in its folder: one JSON line per change of a record. */
export const REGISTRY_FILE = "records.jsonl";

/** A line that ends a record: the id was forgotten on purpose (an evicted session). */
interface RemovedLine {
  id: string;
  removed: true;
}

/** One line of the registry's file. */
function jsonLine(value: ProcessRecord | RemovedLine): string {
  return `${JSON.stringify(value)}\n`;
}

/** Appends a line to the registry, private to the user (0600), making its folder (0700) when missing. */
function appendLine(dir: string, value: ProcessRecord | RemovedLine): void {
  const file = join(dir, REGISTRY_FILE);
  const text = jsonLine(value);
  try {
    appendFileSync(file, text, { mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    appendFileSync(file, text, { mode: 0o600 });
  }
}

/** Records a record's new state: one line appended to the registry. */
export function writeProcessRecord(dir: string, record: ProcessRecord): void {
  appendLine(dir, record);
}

/**
 * Removes a record, and its spool when it has one (a session that was evicted is forgotten). An
 * earlier version's `<id>.json` is not looked for: the line that removes the record outranks it,
 * and the next process to open the registry deletes such files. Past 64 commands a session evicts
 * one at every command, so what is done here is done on the main thread of every round.
 */
export function removeProcessRecord(dir: string, id: string, spoolFile: string | undefined): void {
  if (existsSync(join(dir, REGISTRY_FILE))) appendLine(dir, { id, removed: true });
  if (spoolFile !== undefined) rmSync(spoolFile, { force: true });
}

/** What one reading of the folder found: the latest state of each id, and whether a rewrite would change the file. */
interface RegistryReading {
  latest: Map<string, unknown>;
  /** Lines past the latest of their id, torn or unreadable lines, or files of an earlier version. */
  untidy: boolean;
  legacyFiles: string[];
}

function readRegistry(dir: string): RegistryReading {
  const latest = new Map<string, unknown>();
  const legacyFiles: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return { latest, untidy: false, legacyFiles };
  }
  // An earlier version's files first: anything the registry's lines say about the same id is newer.
  for (const name of names) {
    if (!name.endsWith(".json")) continue;
    const id = name.slice(0, -".json".length);
    legacyFiles.push(name);
    try {
      const parsed: unknown = JSON.parse(readFileSync(join(dir, name), "utf8"));
      // A file's record must name the id its file does.
      if (isObjectWithId(parsed) && parsed.id === id) latest.set(id, parsed);
    } catch {
      // Unreadable: skipped, as a torn line is.
    }
  }
  let lines = 0;
  let torn = false;
  if (names.includes(REGISTRY_FILE)) {
    let text = "";
    try {
      text = readFileSync(join(dir, REGISTRY_FILE), "utf8");
    } catch {
      torn = true;
    }
    for (const line of text.split("\n")) {
      if (line === "") continue;
      lines += 1;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        torn = true;
        continue;
      }
      if (!isObjectWithId(parsed)) {
        torn = true;
      } else if ((parsed as Partial<RemovedLine>).removed === true) {
        latest.delete(parsed.id);
      } else {
        // Re-inserted, so the map keeps the order of each id's latest line.
        latest.delete(parsed.id);
        latest.set(parsed.id, parsed);
      }
    }
  }
  return { latest, untidy: torn || legacyFiles.length > 0 || lines !== latest.size, legacyFiles };
}

function isObjectWithId(value: unknown): value is { id: string } {
  return typeof value === "object" && value !== null && typeof (value as { id?: unknown }).id === "string";
}

/** The valid records of a reading, in id order (`cmd_2` before `cmd_10`); invalid ones are skipped. */
function validRecords(latest: Map<string, unknown>): ProcessRecord[] {
  const records: ProcessRecord[] = [];
  for (const value of latest.values()) {
    const record = processRecordSchemas().ProcessRecordSchema.safeParse(value);
    if (record.success) records.push(record.data);
  }
  return records.sort((a, b) => idNumber(a.id) - idNumber(b.id) || a.id.localeCompare(b.id));
}

/** Every readable record of the folder, in id order (`cmd_2` before `cmd_10`); unreadable ones are skipped. */
export function readProcessRecords(dir: string): ProcessRecord[] {
  return validRecords(readRegistry(dir).latest);
}

/** The record of one id, or undefined when it has none that is readable and names that id. */
export function readProcessRecord(dir: string, id: string): ProcessRecord | undefined {
  // An id from elsewhere (a trace) is checked like a recorded one.
  const { ProcessRecordSchema } = processRecordSchemas();
  if (!ProcessRecordSchema.shape.id.safeParse(id).success) return undefined;
  const record = ProcessRecordSchema.safeParse(readRegistry(dir).latest.get(id));
  return record.success ? record.data : undefined;
}

/**
 * The registry's records, after rewriting its file whole when it holds more than one line per
 * record, a torn or unreadable line, or an earlier version's files: a temporary file renamed over
 * it, then the old files removed. Run before a process appends to a registry another process wrote
 * (ProcessManager restores first), so its lines never follow a torn one.
 */
export function tidyProcessRecords(dir: string): ProcessRecord[] {
  const reading = readRegistry(dir);
  const records = validRecords(reading.latest);
  if (!reading.untidy) return records;
  const file = join(dir, REGISTRY_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, records.map(jsonLine).join(""), { mode: 0o600 });
  renameSync(temp, file);
  for (const name of reading.legacyFiles) rmSync(join(dir, name), { force: true });
  return records;
}

/** The number at the end of an id (`cmd_12` → 12), 0 without one. */
export function idNumber(id: string): number {
  const match = /(\d+)$/.exec(id);
  return match ? Number(match[1]) : 0;
}
