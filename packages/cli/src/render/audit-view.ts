import type { AuditEntry } from "@penguin/trace";
import { formatLocalTime, truncateLine } from "./format.js";
import type { Style } from "./style.js";
import { summarizeToolCall } from "./tool-call-summary.js";

/** The approval audit of one session (the root, or a subagent's child session). */
export interface SessionAudit {
  sessionId: string;
  /** Set for a child session: the session whose subagent it was. */
  parentSessionId?: string;
  entries: AuditEntry[];
  /** Why a child session's decisions could not be read (its trace is missing, say). */
  problem?: string;
}

/** The longest arguments text shown without `--full`. */
const ARGUMENTS_CHARS = 300;

/**
 * The approval audit as a person reads it: each decision with the call it decided (its name and
 * its command, or its arguments), what decided it (the source's kind and name) and why.
 */
export function renderAudit(audits: readonly SessionAudit[], style: Style, full = false): string[] {
  const lines: string[] = [];
  let total = 0;
  const counts = { allow: 0, deny: 0, forbidden: 0 };
  for (const audit of audits) {
    if (audit.parentSessionId !== undefined) {
      lines.push("", style.bold(`subagent session ${audit.sessionId} (of ${audit.parentSessionId})`));
    }
    if (audit.problem !== undefined) {
      lines.push(style.yellow(`cannot audit session ${audit.sessionId}: ${audit.problem}`));
      continue;
    }
    if (audit.entries.length === 0) {
      lines.push(style.dim(`no approval decisions in session ${audit.sessionId}`));
      continue;
    }
    for (const entry of audit.entries) {
      total++;
      counts[entry.decision]++;
      lines.push(...renderEntry(total, entry, style, full));
    }
  }
  lines.push(
    "",
    `${total} decision${total === 1 ? "" : "s"}: ${counts.allow} allow, ${counts.deny} deny, ${counts.forbidden} forbidden`,
  );
  return lines;
}

function renderEntry(n: number, entry: AuditEntry, style: Style, full: boolean): string[] {
  const verdict = entry.decision === "allow" ? style.green(entry.decision) : style.red(entry.decision);
  const name = entry.toolName ?? "(call not in the trace)";
  const title = entry.toolName ? summarizeToolCall(entry.toolName, entry.arguments ?? "{}").title : name;
  const lines = [`${style.bold(`${n}.`)} ${verdict} ${title}`];
  const command = commandOf(entry.arguments);
  if (command !== undefined) lines.push(`   command: ${command}`);
  else if (entry.arguments !== undefined) {
    lines.push(`   arguments: ${full ? entry.arguments : truncateLine(entry.arguments, ARGUMENTS_CHARS)}`);
  }
  const source = entry.source ? sourceText(entry.source) : "(not recorded)";
  lines.push(`   decided by: ${source}`);
  if (entry.reason) lines.push(`   reason: ${entry.reason}`);
  const outcome = entry.outcome
    ? ` · outcome ${entry.outcome}${refusedBeside(entry)}`
    : entry.decision === "allow"
      ? " · no output"
      : "";
  lines.push(style.dim(`   call ${entry.toolCallId} · ${formatLocalTime(entry.timestamp)}${outcome}`));
  return lines;
}

function sourceText(source: NonNullable<AuditEntry["source"]>): string {
  return `${source.kind}${source.name ? ` "${source.name}"` : ""}`;
}

/**
 * A refused call's output is `aborted`, as the contract says; on its own that reads as if it was
 * interrupted, so the decision and who made it go beside it: `aborted (denied by human)`.
 */
function refusedBeside(entry: AuditEntry): string {
  if (entry.decision === "allow") return "";
  const verb = entry.decision === "forbidden" ? "forbidden" : "denied";
  if (entry.source?.kind === "no_terminal") return ` (${verb}: no terminal to ask)`;
  return entry.source ? ` (${verb} by ${sourceText(entry.source)})` : ` (${verb})`;
}

/** The shell command of a command tool's call (`cmd`), or the keystrokes sent to one (`chars`). */
function commandOf(argumentsJson: string | undefined): string | undefined {
  if (argumentsJson === undefined) return undefined;
  try {
    const args = JSON.parse(argumentsJson) as Record<string, unknown>;
    if (args && typeof args.cmd === "string") return args.cmd;
    if (args && typeof args.chars === "string") return JSON.stringify(args.chars);
  } catch {
    // Malformed arguments are shown as written.
  }
  return undefined;
}
