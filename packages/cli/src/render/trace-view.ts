import type { OmniMessage, TokenCounts } from "@penguin/protocol";
import { formatModelRef } from "@penguin/state";
import { formatLocalTime, truncateLine } from "./format.js";
import { journalLines } from "./journal-lines.js";
import type { Style } from "./style.js";
import { terminalSafe } from "./terminal-text.js";
import { collapseOutput, summarizeToolCall } from "./tool-call-summary.js";

export interface TraceViewOptions {
  style: Style;
  /** Whole tool outputs and arguments instead of their first and last lines. */
  full?: boolean;
}

/** A data URL's base64 body says nothing to a reader: it is shown by its size. */
const DATA_URL = /^data:([^;,]+)?(;base64)?,/;
/** The longest one-line value of a tool call argument shown without `--full`. */
const ARGUMENT_LINE_CHARS = 200;

const indent = (text: string, prefix: string) =>
  text
    .split("\n")
    .map((line) => prefix + line)
    .join("\n");

const tokensText = (t: TokenCounts) => `${t.total} tokens (${t.output} out, ${t.cache_read} cached)`;

/**
 * Renders a trace for a person to read: one call per record, in trace order, returning the lines
 * to print. It keeps the few facts later records refer to (tool names by call id, the request
 * number), so a trace can be streamed through it file by file.
 */
export class TraceView {
  readonly #opts: TraceViewOptions;
  readonly #callNames = new Map<string, string>();
  #contexts = 0;
  #requests = 0;

  constructor(opts: TraceViewOptions) {
    this.#opts = opts;
  }

  render(record: OmniMessage): string[] {
    const { style } = this.#opts;
    // A trace never stores a child's messages (they live in the child's trace); say so if one does.
    const child = record.origin && record.origin.length > 0 ? `[${record.origin.join(" › ")}] ` : "";
    const lines = this.#lines(record);
    return child ? lines.map((line) => style.dim(child) + line) : lines;
  }

  #lines(record: OmniMessage): string[] {
    const { style } = this.#opts;
    if (record.type === "session_meta") {
      const meta = record.payload;
      this.#contexts++;
      if (this.#contexts > 1) return ["", style.bold(`── context ${this.#contexts} (a new trace file) ──`)];
      const model = formatModelRef({ provider: meta.provider, modelId: meta.model_id });
      const head = `session ${meta.session_id} · ${model} · ${formatLocalTime(record.timestamp)}`;
      const lines = [style.bold(head), style.dim(`  workspace ${meta.workspace}`)];
      if (meta.agent_id) lines.push(style.dim(`  agent ${meta.agent_id}`));
      if (meta.source)
        lines.push(style.dim(`  ${meta.source} of session ${meta.parent_session_id ?? "(unknown)"}`));
      return lines;
    }
    const p = record.payload;
    switch (p.type) {
      case "text": {
        const who = p.role === "assistant" ? "assistant" : (p.sender?.replace("_", " ") ?? "user");
        const label = p.role === "assistant" ? style.green(`◂ ${who}`) : style.cyan(`▸ ${who}`);
        return p.role === "assistant" ? [label, indent(p.text, "  ")] : ["", label, indent(p.text, "  ")];
      }
      case "thinking":
        return [style.dim("  ✻ thinking"), style.dim(indent(p.thinking, "    "))];
      case "tool_call": {
        this.#callNames.set(p.tool_call_id, p.name);
        const { title } = summarizeToolCall(p.name, p.arguments);
        return [
          `${style.cyan("●")} ${style.bold(title)} ${style.dim(`[${p.tool_call_id}]`)}`,
          ...this.#arguments(p.arguments),
        ];
      }
      case "tool_call_output": {
        const name = this.#callNames.get(p.tool_call_id) ?? "tool";
        const status =
          p.stop_reason && p.stop_reason !== "completed" ? style.yellow(` [${p.stop_reason}]`) : "";
        const images = p.images && p.images.length > 0 ? style.dim(` (+${p.images.length} image(s))`) : "";
        const output = terminalSafe(p.output);
        const shown = this.#opts.full ? output.replace(/\n$/, "") : collapseOutput(output).text;
        return [
          `  ${style.dim("←")} ${name} output ${style.dim(`[${p.tool_call_id}]`)}${status}${images}`,
          style.dim(indent(shown, "    │ ")),
        ];
      }
      case "image_url":
        return [style.dim(`  [image ${describeUrl(p.image_url)}]`)];
      case "inline_data":
        return [style.dim(`  [${p.role} data ${p.mime_type}, ${p.data.length} base64 chars]`)];
      case "tool_list_ready":
        return [style.dim(`  tools (${p.tools.length}): ${p.tools.map((t) => t.name).join(", ")}`)];
      case "request_begin": {
        if (p.attempt === undefined || p.attempt <= 1) this.#requests++;
        const attempt = p.attempt && p.attempt > 1 ? `, attempt ${p.attempt}` : "";
        return ["", style.dim(`· request ${this.#requests}${attempt}`)];
      }
      case "request_end": {
        if (p.status === "completed") return [];
        const why = p.error_message ?? "no detail";
        if (p.retry_in_ms !== undefined) {
          const secs = (p.retry_in_ms / 1000).toFixed(1);
          return [style.yellow(`↻ request ${this.#requests} ${p.status}: ${why}; retrying in ${secs}s`)];
        }
        return [style.red(`✗ request ${this.#requests} ${p.status}: ${why}`)];
      }
      case "approval_decision": {
        const name = this.#callNames.get(p.tool_call_id) ?? p.tool_call_id;
        const by = p.source ? ` by ${p.source.kind}${p.source.name ? ` "${p.source.name}"` : ""}` : "";
        const reason = p.reason ? `: ${terminalSafe(p.reason)}` : "";
        const text = `${p.decision === "allow" ? "✓" : "✗"} ${p.decision} ${name}${by}${reason}`;
        return [`  ${p.decision === "allow" ? style.green(text) : style.red(text)}`];
      }
      case "tool_dispatched":
      case "tool_effect":
      case "activity_resolved":
        return journalLines(p, this.#callNames.get(p.tool_call_id) ?? "tool", style, this.#opts.full);
      case "token_usage": {
        const cost = p.session_cost_usd !== undefined ? ` · $${p.session_cost_usd.toFixed(4)}` : "";
        return [style.dim(`  tokens: request ${tokensText(p.request)} · session ${p.session.total}${cost}`)];
      }
      case "compaction_begin":
        return [style.yellow(`⋯ compaction (${p.reason}, ${p.mode}) began`)];
      case "compaction_end":
        return [
          style.yellow(`⋯ compaction ended ${p.status}${p.error_message ? `: ${p.error_message}` : ""}`),
        ];
      case "abort":
        return [style.yellow(`■ interrupted${p.reason ? `: ${p.reason}` : ""}`)];
      case "subagent": {
        const who = p.subagent_id ? `subagent ${p.subagent_id}` : "subagent";
        return [
          `  ${style.cyan("↳")} ${who}: session ${p.session_id} ${style.dim(`(penguin trace ${p.session_id})`)}`,
        ];
      }
      case "warning":
        return [style.yellow(`! warning (${p.source}): ${p.message}`)];
      case "limit_reached":
        return [style.yellow(`■ limit ${p.limit} reached (${p.used} of ${p.max}): ${p.message}`)];
      case "task_end": {
        const text = `■ task ${p.status}${p.message ? `: ${p.message}` : ""}`;
        return [p.status === "completed" ? style.green(text) : style.red(text)];
      }
      default:
        // Partials are never traced; a record type from a newer Penguin is named, not hidden.
        return [style.dim(`  (${record.type} ${(p as { type: string }).type})`)];
    }
  }

  /** The call's arguments other than its description, one `key: value` per argument. */
  #arguments(argumentsJson: string): string[] {
    const { style, full } = this.#opts;
    let args: unknown;
    try {
      args = JSON.parse(argumentsJson);
    } catch {
      return [style.yellow("    (arguments are not valid JSON)"), style.dim(indent(argumentsJson, "    "))];
    }
    if (!args || typeof args !== "object" || Array.isArray(args)) return [style.dim(`    ${argumentsJson}`)];
    const lines: string[] = [];
    for (const [key, value] of Object.entries(args)) {
      // The call's title shows its description (or run_command's purpose) already.
      if (
        key === "description" ||
        (key === "purpose" && typeof (args as { description?: unknown }).description !== "string")
      )
        continue;
      const text = typeof value === "string" ? value : JSON.stringify(value);
      if (text.includes("\n")) {
        const shown = full ? text.replace(/\n$/, "") : collapseOutput(text).text;
        lines.push(style.dim(`    ${key}:`), style.dim(indent(shown, "      ")));
      } else {
        lines.push(style.dim(`    ${key}: ${full ? text : truncateLine(text, ARGUMENT_LINE_CHARS)}`));
      }
    }
    return lines;
  }
}

function describeUrl(url: string): string {
  const match = DATA_URL.exec(url);
  if (!match) return url;
  return `${match[1] ?? "data"}, ${url.length - match[0].length} chars`;
}
