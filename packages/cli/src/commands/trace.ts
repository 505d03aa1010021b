import {
  agentTree,
  approvalAudit,
  iterateSession,
  readSession,
  type SubagentNode,
  subagentTree,
  type TraceDiagnostic,
} from "@penguin/trace";
import { type DataRootOptions, dataRootOf, traceLocationOf } from "../data-root.js";
import { EXIT_COMPLETED } from "../exit-codes.js";
import { endQuietlyOnClosedPipe, note, out } from "../output.js";
import { renderAgentTree } from "../render/agent-tree-view.js";
import { renderAudit, type SessionAudit } from "../render/audit-view.js";
import { colourEnabled, createStyle } from "../render/style.js";
import { TraceView } from "../render/trace-view.js";
import { requireSession, toCliError } from "../session-lookup.js";

export interface TraceOptions extends DataRootOptions {
  /** Whole tool outputs and arguments. */
  full?: boolean;
  /** The approval audit instead of the whole trace. */
  approvals?: boolean;
  /** The tree of agents (the session's agent and the children it launched) instead of the trace. */
  agents?: boolean;
  /** Raw records (or audit entries) as JSON lines. */
  json?: boolean;
}

/** `penguin trace <session-id>`: a trace for a person to read, its approval audit, or raw JSON lines. */
export async function traceCommand(id: string, opts: TraceOptions): Promise<number> {
  const loc = traceLocationOf(dataRootOf(opts));
  requireSession(loc, id);
  endQuietlyOnClosedPipe();
  const diagnostics: TraceDiagnostic[] = [];
  try {
    if (opts.agents) printAgents(loc, id, opts, diagnostics);
    else if (opts.approvals) printAudit(auditsOf(subagentTree(loc, id), loc, diagnostics), opts);
    else {
      const view = opts.json
        ? undefined
        : new TraceView({ style: createStyle(colourEnabled(process.stdout)), full: opts.full });
      for (const record of iterateSession(loc, id, (d) => diagnostics.push(d))) {
        if (view) for (const line of view.render(record)) out(line);
        else out(JSON.stringify(record));
      }
    }
  } catch (error) {
    throw toCliError(error, `read session ${id}`);
  }
  for (const d of diagnostics) note(`penguin: warning: ${d.path}:${d.line}: ${d.message}`);
  return EXIT_COMPLETED;
}

const PROBLEMS: Record<NonNullable<SubagentNode["problem"]>, string> = {
  missing: "its trace is missing (deleted, or never written)",
  invalid_id: "the subagent pointer names an invalid session id",
  cycle: "the subagent pointers form a cycle",
};

/**
 * The audit of the session and of every child session its subagent pointers lead to: a
 * subagent's decisions live in its own trace, and an audit that left them out would be partial.
 */
function auditsOf(
  root: SubagentNode,
  loc: Parameters<typeof readSession>[0],
  diagnostics: TraceDiagnostic[],
): SessionAudit[] {
  const audits: SessionAudit[] = [];
  const visit = (node: SubagentNode, parent: string | undefined) => {
    if (node.problem !== undefined) {
      audits.push({
        sessionId: node.sessionId,
        parentSessionId: parent,
        entries: [],
        problem: PROBLEMS[node.problem],
      });
      return;
    }
    const { records, diagnostics: found } = readSession(loc, node.sessionId);
    diagnostics.push(...found);
    audits.push({ sessionId: node.sessionId, parentSessionId: parent, entries: approvalAudit(records) });
    for (const child of node.children) visit(child, node.sessionId);
  };
  visit(root, undefined);
  return audits;
}

/**
 * The agents of the session from its traces. The CLI sees no live process: a task with no end is
 * shown as interrupted (a session another process still runs shows so until its task ends).
 */
function printAgents(
  loc: Parameters<typeof agentTree>[0],
  id: string,
  opts: TraceOptions,
  diagnostics: TraceDiagnostic[],
): void {
  const tree = agentTree(loc, id, { onDiagnostic: (d) => diagnostics.push(d) });
  if (opts.json) out(JSON.stringify(tree));
  else for (const line of renderAgentTree(tree, createStyle(colourEnabled(process.stdout)))) out(line);
}

function printAudit(audits: SessionAudit[], opts: TraceOptions): void {
  if (opts.json) {
    for (const audit of audits) {
      for (const entry of audit.entries) out(JSON.stringify({ session_id: audit.sessionId, ...entry }));
    }
    return;
  }
  for (const line of renderAudit(audits, createStyle(colourEnabled(process.stdout)), opts.full)) out(line);
}
