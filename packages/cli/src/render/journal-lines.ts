import type { ActivityResolvedPayload, ToolDispatchedPayload, ToolEffectPayload } from "@penguin/protocol";
import type { Style } from "./style.js";
import { terminalSafe } from "./terminal-text.js";

// The journal's records in `penguin trace`: a call's dispatch, the effect it announced before it
// acted (each file with its hash before and after), and a decision taken on it after a crash.

/** Hex characters of a hash shown without `--full` (enough to tell two versions apart). */
const SHORT_HASH = 12;

type JournalPayload = ToolDispatchedPayload | ToolEffectPayload | ActivityResolvedPayload;

export function journalLines(p: JournalPayload, name: string, style: Style, full = false): string[] {
  const id = style.dim(`[${p.tool_call_id}]`);
  const hash = (value: string | null, absent: string) =>
    value === null ? absent : full ? value : value.slice(0, SHORT_HASH);
  switch (p.type) {
    case "tool_dispatched":
      return [style.dim(`  ▸ dispatched ${name} [${p.tool_call_id}]${p.read_only ? " (read-only)" : ""}`)];
    case "tool_effect": {
      const lines = [`  ${style.cyan("✎")} effect ${name} ${id}`];
      for (const file of p.files ?? []) {
        const change = `${hash(file.before_sha256, "absent")} → ${hash(file.after_sha256, "removed")}`;
        lines.push(style.dim(`    ${terminalSafe(file.path)}  ${change}`));
      }
      if (p.process_id !== undefined) lines.push(style.dim(`    process ${p.process_id}`));
      return lines;
    }
    case "activity_resolved": {
      const where = p.session_id !== undefined ? ` in session ${p.session_id}` : "";
      const lines = [
        style.yellow(`  ⚑ resolved ${name} [${p.tool_call_id}]${where}: ${p.decision} by ${p.by}`),
        style.dim(`    evidence: ${terminalSafe(p.evidence)}`),
      ];
      if (p.verified !== undefined) lines.push(style.dim(`    Penguin's check: ${terminalSafe(p.verified)}`));
      return lines;
    }
  }
}
