import type { OmniMessage, TokenCounts } from "@penguin/protocol";
import type { Style } from "./style.js";
import { collapseOutput, summarizeToolCall } from "./tool-call-summary.js";

export interface RendererOptions {
  /** Assistant text goes here (so `penguin run ... > answer.txt` captures the answer). */
  out: NodeJS.WritableStream;
  /** Activity (tool calls, outputs, retries, the summary) goes here. */
  err: NodeJS.WritableStream;
  style: Style;
  /** Show whole tool outputs instead of the first and last lines. */
  fullOutput?: boolean;
  /** Show the model's thinking. */
  showThinking?: boolean;
}

export interface TaskSummary {
  status: string;
  message?: string;
  tokens?: TokenCounts;
  costUsd?: number;
}

const indent = (text: string, prefix: string) =>
  text
    .split("\n")
    .map((l) => prefix + l)
    .join("\n");

/** Renders a session's envelope stream for a human at a terminal. */
export class TerminalRenderer {
  private atLineStart = true;
  private readonly callNames = new Map<string, string>();
  readonly summary: TaskSummary = { status: "completed" };

  constructor(private readonly opts: RendererOptions) {}

  render(message: OmniMessage): void {
    if (message.type === "session_meta") return;
    const child = message.origin !== undefined && message.origin.length > 0;
    const p = message.payload;
    const { style } = this.opts;
    switch (p.type) {
      case "partial_text":
        if (p.event_type === "delta" && !child) this.writeOut(p.text);
        if (p.event_type === "stop" && !child) this.endOutLine();
        return;
      case "partial_thinking":
        if (this.opts.showThinking && p.event_type === "delta") this.writeErr(style.dim(p.thinking));
        return;
      case "tool_call": {
        this.callNames.set(p.tool_call_id, p.name);
        const { title, detail } = summarizeToolCall(p.name, p.arguments);
        this.line(`${child ? "  ↳ " : ""}${style.cyan("●")} ${style.bold(title)}`);
        if (detail && detail !== title) this.line(indent(style.dim(detail), child ? "      " : "  "));
        return;
      }
      case "tool_call_output": {
        const shown = this.opts.fullOutput ? { text: p.output, folded: 0 } : collapseOutput(p.output);
        const mark =
          p.stop_reason && p.stop_reason !== "completed" ? style.yellow(` [${p.stop_reason}]`) : "";
        this.line(indent(style.dim(shown.text), child ? "      │ " : "  │ ") + mark);
        return;
      }
      case "approval_decision":
        if (p.decision !== "allow") {
          const by = p.source?.name ? ` by ${p.source.name}` : "";
          this.line(style.yellow(`  ✗ ${p.decision}${by}${p.reason ? `: ${p.reason}` : ""}`));
        }
        return;
      case "request_end":
        if (p.status !== "completed" && p.retry_in_ms !== undefined) {
          const secs = (p.retry_in_ms / 1000).toFixed(1);
          this.line(
            style.yellow(`  ↻ request ${p.status} (${p.error_message ?? "no detail"}); retry in ${secs}s`),
          );
        } else if (p.status !== "completed" && p.status !== "aborted") {
          this.line(style.red(`  ✗ request ${p.status}: ${p.error_message ?? "no detail"}`));
        }
        return;
      case "token_usage":
        if (!child) {
          this.summary.tokens = p.session;
          if (p.session_cost_usd !== undefined) this.summary.costUsd = p.session_cost_usd;
        }
        return;
      case "limit_reached":
        this.line(style.yellow(`  ■ ${p.message}`));
        return;
      case "abort":
        if (!child) this.line(style.yellow(`  ■ interrupted${p.reason ? `: ${p.reason}` : ""}`));
        return;
      case "task_end":
        if (!child) {
          this.summary.status = p.status;
          this.summary.message = p.message;
        }
        return;
      default:
        return;
    }
  }

  /** The closing lines: status, tokens, cost and where the trace is. */
  finish(tracePath: string | undefined): void {
    const { style } = this.opts;
    this.endOutLine();
    const s = this.summary;
    const parts = [s.status === "completed" ? style.green("done") : style.red(s.status)];
    if (s.tokens)
      parts.push(`${s.tokens.total} tokens (${s.tokens.output} out, ${s.tokens.cache_read} cached)`);
    if (s.costUsd !== undefined) parts.push(`$${s.costUsd.toFixed(4)}`);
    this.line(`${style.dim("──")} ${parts.join(style.dim(" · "))}`);
    if (s.message && s.status !== "completed") this.line(style.red(s.message));
    if (tracePath) this.line(`${style.dim("trace:")} ${tracePath}`);
  }

  private writeOut(text: string): void {
    if (text.length === 0) return;
    this.opts.out.write(text);
    this.atLineStart = text.endsWith("\n");
  }

  private endOutLine(): void {
    if (!this.atLineStart) {
      this.opts.out.write("\n");
      this.atLineStart = true;
    }
  }

  private writeErr(text: string): void {
    this.opts.err.write(text);
  }

  private line(text: string): void {
    this.endOutLine();
    this.opts.err.write(`${text}\n`);
  }
}
