import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { formatModelRef } from "@penguin/state";
import {
  deleteSession,
  exportSession,
  importSession,
  listSessions,
  readSession,
  type SessionSummary,
  type TraceDiagnostic,
  TraceError,
  type TraceLocation,
} from "@penguin/trace";
import { askConsent } from "../confirm.js";
import { type DataRootOptions, dataRootOf, traceLocationOf } from "../data-root.js";
import { EXIT_COMPLETED, EXIT_TASK_FAILED, UsageError } from "../exit-codes.js";
import { endQuietlyOnClosedPipe, note, out } from "../output.js";
import { formatBytes, formatLocalTime, formatTable, tildePath } from "../render/format.js";
import { colourEnabled, createStyle } from "../render/style.js";
import { checkSessionId, requireSession, toCliError } from "../session-lookup.js";
import { countTraceLines, sessionStats } from "../session-stats.js";
import { recoveryLines, recoveryOf } from "./sessions-recovery.js";

/** Diagnostics shown per command before "and N more". */
const DIAGNOSTICS_SHOWN = 5;

function warnDiagnostics(diagnostics: readonly TraceDiagnostic[]): void {
  for (const d of diagnostics.slice(0, DIAGNOSTICS_SHOWN))
    note(`penguin: warning: ${d.path}:${d.line}: ${d.message}`);
  if (diagnostics.length > DIAGNOSTICS_SHOWN) {
    note(`penguin: warning: … and ${diagnostics.length - DIAGNOSTICS_SHOWN} more skipped lines`);
  }
}

const modelOf = (s: Pick<SessionSummary, "provider" | "modelId">) =>
  s.provider !== undefined ? formatModelRef({ provider: s.provider, modelId: s.modelId ?? "" }) : "?";

export interface SessionsListOptions extends DataRootOptions {
  json?: boolean;
}

/** `penguin sessions list`: newest first, one row per session. */
export async function sessionsList(opts: SessionsListOptions): Promise<number> {
  endQuietlyOnClosedPipe();
  const loc = traceLocationOf(dataRootOf(opts));
  const sessions = listSessions(loc).map((s) => ({ ...s, records: countTraceLines(s.files) }));
  if (opts.json) {
    const rows = sessions.map((s) => ({
      id: s.sessionId,
      created: s.created,
      updated: s.updated,
      provider: s.provider,
      model_id: s.modelId,
      workspace: s.workspace,
      agent_id: s.agentId,
      source: s.source,
      parent_session_id: s.parentSessionId,
      records: s.records,
      bytes: s.bytes,
      files: s.files,
      problem: s.problem,
    }));
    out(JSON.stringify(rows, null, 2));
    return EXIT_COMPLETED;
  }
  if (sessions.length === 0) {
    note(`no sessions under ${loc.tracesDir}`);
    return EXIT_COMPLETED;
  }
  const style = createStyle(colourEnabled(process.stdout));
  const header = ["ID", "CREATED", "MODEL", "WORKSPACE", "RECORDS"].map((h) => style.bold(h));
  const rows = sessions.map((s) => {
    let records = String(s.records);
    if (s.source) records += style.dim(`  (${s.source} of ${s.parentSessionId ?? "?"})`);
    if (s.problem) records += style.yellow(`  (${s.problem})`);
    return [s.sessionId, formatLocalTime(s.created), modelOf(s), tildePath(s.workspace ?? "?"), records];
  });
  for (const line of formatTable([header, ...rows])) out(line);
  return EXIT_COMPLETED;
}

export interface SessionsShowOptions extends DataRootOptions {
  json?: boolean;
}

/** `penguin sessions show <id>`: the session's meta, files, counts and last status. */
export async function sessionsShow(id: string, opts: SessionsShowOptions): Promise<number> {
  const root = dataRootOf(opts);
  const loc = traceLocationOf(root);
  requireSession(loc, id);
  let contents: ReturnType<typeof readSession>;
  try {
    contents = readSession(loc, id);
  } catch (error) {
    throw toCliError(error, `read session ${id}`);
  }
  const { files, records, diagnostics } = contents;
  const stats = sessionStats(records);
  const fileInfo = files.map((file) => ({
    file,
    bytes: statSync(file).size,
    records: countTraceLines([file]),
  }));
  const scratchpad = join(loc.scratchpadRoot, id);
  const hasScratchpad = existsSync(scratchpad);
  const recovery = await recoveryOf(records, scratchpad);
  if (opts.json) {
    out(
      JSON.stringify(
        {
          id,
          created: stats.firstMeta?.timestamp,
          meta: stats.latestMeta,
          files: fileInfo,
          scratchpad: hasScratchpad ? scratchpad : null,
          stats: { ...stats, firstMeta: undefined, latestMeta: undefined },
          uncertain: recovery.uncertain,
          resolved: recovery.resolved,
          processes: recovery.processes,
          diagnostics,
        },
        null,
        2,
      ),
    );
    return EXIT_COMPLETED;
  }
  warnDiagnostics(diagnostics);
  const style = createStyle(colourEnabled(process.stdout));
  const meta = stats.latestMeta;
  const rows: string[][] = [["session", id]];
  if (stats.firstMeta)
    rows.push(["created", `${formatLocalTime(stats.firstMeta.timestamp)} (${stats.firstMeta.timestamp})`]);
  if (meta) {
    const window = meta.model_context_window ? ` (context window ${meta.model_context_window})` : "";
    rows.push(
      ["model", `${formatModelRef({ provider: meta.provider, modelId: meta.model_id })}${window}`],
      ["workspace", meta.workspace],
    );
    if (meta.agent_id) rows.push(["agent", meta.agent_id]);
    if (meta.source) rows.push(["source", `${meta.source} of session ${meta.parent_session_id ?? "?"}`]);
  } else {
    rows.push(["model", style.yellow("? (the trace has no readable session_meta)")]);
  }
  const status = stats.lastStatus;
  if (status) {
    const text =
      status.status === "unfinished"
        ? style.yellow("unfinished (a task started and has no task_end: still running, or stopped)")
        : `${status.status === "completed" ? style.green(status.status) : style.red(status.status)}${status.message ? `: ${status.message}` : ""}`;
    rows.push(["status", text]);
  } else {
    rows.push(["status", style.dim("no task yet")]);
  }
  const d = stats.decisions;
  rows.push(
    ["records", `${stats.records} in ${files.length} file${files.length === 1 ? "" : "s"}`],
    ["messages", `${stats.userMessages} user, ${stats.assistantMessages} assistant`],
    ["tool calls", `${stats.toolCalls} (${stats.toolOutputs} outputs)`],
    ["approvals", `${d.allow} allow, ${d.deny} deny, ${d.forbidden} forbidden`],
    ["requests", `${stats.requests} (${stats.failedRequests} failed or retried)`],
    ["tasks", String(stats.tasks)],
  );
  if (stats.compactions > 0) rows.push(["compactions", String(stats.compactions)]);
  if (stats.tokens) {
    const cost = stats.costUsd !== undefined ? ` · $${stats.costUsd.toFixed(4)}` : "";
    rows.push([
      "tokens",
      `${stats.tokens.total} (${stats.tokens.output} out, ${stats.tokens.cache_read} cached)${cost}`,
    ]);
  }
  if (stats.subagents.length > 0) rows.push(["subagents", stats.subagents.join(", ")]);
  rows.push(["scratchpad", hasScratchpad ? scratchpad : style.dim("(none)")]);
  for (const line of formatTable(rows.map(([k, v]) => [style.bold(k), v]))) out(line);
  out(style.bold("files"));
  for (const f of fileInfo)
    out(`  ${f.file} ${style.dim(`(${f.records} records, ${formatBytes(f.bytes)})`)}`);
  for (const line of recoveryLines(recovery, style)) out(line);
  return EXIT_COMPLETED;
}

export interface SessionsDeleteOptions extends DataRootOptions {
  yes?: boolean;
}

/** `penguin sessions delete <id>`: its traces and scratchpad, after a confirmation. */
export async function sessionsDelete(id: string, opts: SessionsDeleteOptions): Promise<number> {
  const loc = traceLocationOf(dataRootOf(opts));
  checkSessionId(id);
  const files = requireSessionOrScratchpad(loc, id);
  // Core is loaded only here: the other sessions commands read traces alone.
  const { sessionHolder } = await import("@penguin/core");
  const holder = sessionHolder(join(loc.scratchpadRoot, id));
  if (holder) {
    throw new UsageError(
      `session ${id} is open in another process (pid ${holder.pid}, since ${holder.since}): end it there before deleting it`,
      EXIT_TASK_FAILED,
    );
  }
  const consent = await askConsent(
    `delete session ${id} (${files.length} trace file${files.length === 1 ? "" : "s"} and its scratchpad)?`,
    opts.yes,
  );
  if (consent === "no-terminal") {
    throw new UsageError(
      `deleting a session needs confirmation and stdin is not a terminal: pass --yes to delete session ${id}`,
    );
  }
  if (consent === "refused") {
    note("nothing deleted");
    return EXIT_TASK_FAILED;
  }
  let result: ReturnType<typeof deleteSession>;
  try {
    result = deleteSession(loc, id);
  } catch (error) {
    throw toCliError(error, `delete session ${id}`);
  }
  const scratch = result.removedScratchpad ? " and its scratchpad" : "";
  out(`deleted session ${id}: ${result.removedFiles.length} trace file(s)${scratch}`);
  return EXIT_COMPLETED;
}

/** A session to delete may have lost its trace and kept only its scratchpad: both count. */
function requireSessionOrScratchpad(loc: TraceLocation, id: string): string[] {
  try {
    return requireSession(loc, id);
  } catch (error) {
    if (existsSync(join(loc.scratchpadRoot, id))) return [];
    throw error;
  }
}

export interface SessionsExportOptions extends DataRootOptions {
  output?: string;
  force?: boolean;
}

/** `penguin sessions export <id>`: one JSONL file, written 0600. */
export async function sessionsExport(id: string, opts: SessionsExportOptions): Promise<number> {
  const loc = traceLocationOf(dataRootOf(opts));
  requireSession(loc, id);
  const dest = resolve(opts.output ?? `${id}.jsonl`);
  if (existsSync(dest)) {
    if (statSync(dest).isDirectory()) throw new UsageError(`${dest} is a folder: pass --output <file>`);
    if (!opts.force)
      throw new UsageError(`${dest} already exists: pass --force to replace it, or --output <file>`);
  }
  let result: ReturnType<typeof exportSession>;
  try {
    result = exportSession(loc, id, dest);
  } catch (error) {
    throw toCliError(error, `write ${dest}`);
  }
  warnDiagnostics(result.diagnostics);
  out(`exported session ${id} (${result.records} records) to ${dest}`);
  return EXIT_COMPLETED;
}

export interface SessionsImportOptions extends DataRootOptions {
  as?: string;
}

/** `penguin sessions import <file>`: the session of an export, under its own id or `--as`. */
export async function sessionsImport(file: string, opts: SessionsImportOptions): Promise<number> {
  const loc = traceLocationOf(dataRootOf(opts));
  if (opts.as !== undefined) checkSessionId(opts.as);
  const source = resolve(file);
  if (!existsSync(source) || !statSync(source).isFile()) {
    throw new UsageError(`no file ${source}: pass the .jsonl file that \`penguin sessions export\` wrote`);
  }
  let id: string;
  try {
    id = importSession(loc, source, opts.as !== undefined ? { newSessionId: opts.as } : {});
  } catch (error) {
    if (error instanceof TraceError && error.code === "session_exists") {
      throw new UsageError(`${error.message}: pass --as <new-id>`);
    }
    throw toCliError(error, `import ${source}`);
  }
  out(`imported session ${id} from ${source}`);
  return EXIT_COMPLETED;
}
