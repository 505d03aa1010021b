import type { GoalFinishedPayload, OmniMessage, TokenCounts, ToolSpec } from "@penguin/protocol";
import { agentEventLine } from "./agent-event-line.js";
import { AssistantText, type TextMode } from "./assistant-text.js";
import { changesLine } from "./changes-line.js";
import { styleToolOutput } from "./diff-colors.js";
import { completedTopLevelString } from "./partial-json.js";
import { planProposedLine, planUpdatedLines } from "./plan-lines.js";
import { Screen } from "./screen.js";
import type { Style } from "./style.js";
import { showControls, terminalSafe } from "./terminal-text.js";
import { CALL_DESCRIPTION_ARGUMENTS, collapseOutput, summarizeToolCall } from "./tool-call-summary.js";

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
  /** Where writes go; default: a plain (no status line) screen over `out` and `err`. */
  screen?: Screen;
  /** What a folded output says shows the rest (e.g. "Ctrl-O shows all"). */
  expandHint?: string;
  /** Clock for elapsed times. */
  now?: () => number;
  /** How the model's text is printed on `out` (default: exactly as written). */
  text?: TextMode;
}

export interface TaskSummary {
  status: string;
  message?: string;
  tokens?: TokenCounts;
  costUsd?: number;
  /** How a goal-mode run ended. */
  goal?: GoalFinishedPayload;
}

/** The argument a tool's schema offers for its one-sentence call description. */
export const DESCRIPTION_ARGUMENT = "description";

const indent = (text: string, prefix: string) =>
  text
    .split("\n")
    .map((l) => prefix + l)
    .join("\n");

/** The status line shows at most this much of a running call's latest output line. */
export const STATUS_LINE_MAX_CHARS = 60;

/** A finished call says how long it ran when that was at least this long. */
export const SHOW_ELAPSED_FROM_MS = 1000;

/** A tool call from its first streamed fragment until its output arrives. */
interface CallState {
  name: string;
  arguments: string;
  description?: string;
  /** The description line was already printed (a non-terminal prints it as soon as it is known). */
  announced: boolean;
  /** The arguments were shown (by an approval question). */
  detailShown?: boolean;
  /** When the call was approved and started running. */
  startedAt?: number;
  /** The last complete line its output streamed so far (progress of a long call). */
  lastOutputLine?: string;
  /** The streamed text after that line's newline, until its own newline arrives. */
  openOutputLine?: string;
  child: boolean;
}

/** Renders a session's envelope stream for a human at a terminal. */
export class TerminalRenderer {
  private readonly calls = new Map<string, CallState>();
  /** Tools whose parameters offer a `description`: their calls show it while they run. */
  private readonly describable = new Set<string>();
  private requestStartedAt: number | undefined;
  private lastFolded: { title: string; text: string } | undefined;
  /** Messages whose `message_sent` was printed: their delivery is not printed again. */
  private readonly shownMessages = new Set<string>();
  readonly screen: Screen;
  readonly summary: TaskSummary = { status: "completed" };
  private readonly text: AssistantText;

  constructor(private readonly opts: RendererOptions) {
    this.screen = opts.screen ?? new Screen({ out: opts.out, err: opts.err, live: false });
    this.screen.setStatusSource(() => this.status());
    this.text = new AssistantText(opts.text ?? "exact", this.screen);
  }

  /** Loads what rendering needs before a task's first message (the Markdown renderer on a terminal). */
  prepare(): Promise<void> {
    return this.text.prepare();
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  /** Starts a new task's summary (chat runs many tasks through one renderer). */
  beginTask(): void {
    this.summary.status = "completed";
    this.summary.message = undefined;
    this.summary.goal = undefined;
    this.calls.clear();
    this.requestStartedAt = undefined;
  }

  /** An approval question already showed this call whole: its complete message prints nothing more. */
  markShown(toolCallId: string): void {
    const state = this.callState(toolCallId, undefined, false);
    state.announced = true;
    state.detailShown = true;
  }

  /** The whole text of the last output that was shown folded, for Ctrl-O. */
  get lastFoldedOutput(): { title: string; text: string } | undefined {
    return this.lastFolded;
  }

  render(message: OmniMessage): void {
    if (message.type === "session_meta") return;
    const child = message.origin !== undefined && message.origin.length > 0;
    const p = message.payload;
    const { style } = this.opts;
    switch (p.type) {
      case "tool_list_ready":
        if (!child) this.learnTools(p.tools);
        return;
      case "partial_text":
        if (p.event_type === "delta" && !child) this.text.delta(p.text);
        if (p.event_type === "stop" && !child) this.text.end();
        return;
      case "partial_thinking":
        if (this.opts.showThinking && p.event_type === "delta")
          this.screen.write("err", style.dim(p.thinking));
        return;
      case "partial_tool_call":
        this.onPartialCall(p.tool_call_id, p.name, p.arguments, child);
        return;
      case "partial_tool_call_output":
        if (p.event_type === "delta") this.onPartialOutput(p.tool_call_id, p.output);
        return;
      case "tool_call": {
        const state = this.callState(p.tool_call_id, p.name, child);
        state.arguments = p.arguments;
        const { title, detail } = summarizeToolCall(p.name, p.arguments);
        const lead = child ? "  ↳ " : "";
        if (!state.announced) this.line(`${lead}${style.cyan("●")} ${style.bold(title)}`);
        state.announced = true;
        if (detail && detail !== title && !state.detailShown)
          this.line(indent(style.dim(detail), child ? "      " : "  "));
        return;
      }
      case "approval_decision": {
        const state = this.calls.get(p.tool_call_id);
        if (p.decision === "allow") {
          if (state) state.startedAt = this.now();
          this.screen.refresh();
          return;
        }
        const by = p.source?.name ? ` by ${p.source.name}` : "";
        this.line(style.yellow(`  ✗ ${p.decision}${by}${p.reason ? `: ${terminalSafe(p.reason)}` : ""}`));
        return;
      }
      case "tool_call_output": {
        const state = this.calls.get(p.tool_call_id);
        this.calls.delete(p.tool_call_id);
        const output = terminalSafe(p.output);
        const collapsed = collapseOutput(output);
        const folded = !this.opts.fullOutput && collapsed.folded > 0;
        const text = folded ? collapsed.text : output.replace(/\n$/, "");
        if (folded) {
          const title = state ? summarizeToolCall(state.name, state.arguments).title : p.tool_call_id;
          this.lastFolded = { title, text: output };
        }
        const mark =
          p.stop_reason && p.stop_reason !== "completed" ? style.yellow(` [${p.stop_reason}]`) : "";
        const ran = state?.startedAt === undefined ? 0 : this.now() - state.startedAt;
        const took = ran >= SHOW_ELAPSED_FROM_MS ? style.dim(` (${formatElapsed(ran)})`) : "";
        const gutter = child ? "      │ " : "  │ ";
        const lines = styleToolOutput(text, state?.name, style).map((line) => gutter + line);
        this.line(lines.join("\n") + mark + took);
        if (folded && this.opts.expandHint) this.line(style.dim(`  │ (${this.opts.expandHint})`));
        return;
      }
      case "request_begin":
        if (!child) this.requestStartedAt = this.now();
        this.screen.refresh();
        return;
      case "request_end":
        if (!child) this.requestStartedAt = undefined;
        if (p.status !== "completed" && p.retry_in_ms !== undefined) {
          const secs = (p.retry_in_ms / 1000).toFixed(1);
          this.line(
            style.yellow(`  ↻ request ${p.status} (${p.error_message ?? "no detail"}); retry in ${secs}s`),
          );
        } else if (p.status !== "completed" && p.status !== "aborted") {
          this.line(style.red(`  ✗ request ${p.status}: ${p.error_message ?? "no detail"}`));
        }
        this.screen.refresh();
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
      case "compaction_begin":
        if (!child) this.line(style.yellow(`  ⋯ compacting the context (${p.reason}, ${p.mode})`));
        return;
      case "compaction_end":
        if (child) return;
        if (p.status === "completed") this.line(style.yellow("  ⋯ context compacted"));
        else
          this.line(
            style.red(
              `  ✗ compaction ${p.status}: ${p.error_message ?? "no detail"}; the context is unchanged`,
            ),
          );
        return;
      case "abort":
        if (!child) this.line(style.yellow(`  ■ interrupted${p.reason ? `: ${p.reason}` : ""}`));
        return;
      case "task_end":
        if (!child) {
          this.summary.status = p.status;
          this.summary.message = p.message;
          this.calls.clear();
          this.requestStartedAt = undefined;
        }
        return;
      case "goal_finished":
        if (!child) this.summary.goal = p;
        return;
      case "plan_updated":
        if (!child)
          for (const line of planUpdatedLines(p, style, this.opts.text === "markdown")) this.line(line);
        return;
      case "plan_proposed":
        if (!child) this.line(planProposedLine(p, style));
        return;
      case "task_changes":
        if (!child) {
          const lines = changesLine(p);
          if (lines !== "") this.line(style.dim(lines));
        }
        return;
      default: {
        const line = agentEventLine(p, style, (id) => this.shownMessages.has(id));
        if (line === undefined) return;
        if (p.type === "message_sent") this.shownMessages.add(p.message_id);
        this.line(line);
        return;
      }
    }
  }

  /** The closing lines: status, tokens, cost and (when given) where the trace is. */
  finish(tracePath: string | undefined): void {
    const { style } = this.opts;
    this.text.flush();
    this.screen.endLine();
    const s = this.summary;
    const parts = [s.status === "completed" ? style.green("done") : style.red(s.status)];
    if (s.tokens)
      parts.push(`${s.tokens.total} tokens (${s.tokens.output} out, ${s.tokens.cache_read} cached)`);
    if (s.costUsd !== undefined) parts.push(`$${s.costUsd.toFixed(4)}`);
    this.line(`${style.dim("──")} ${parts.join(style.dim(" · "))}`);
    if (s.message && s.status !== "completed") this.line(style.red(s.message));
    if (s.goal) {
      const { outcome, rounds, tokens_used: tokens, reason } = s.goal;
      const colour = outcome === "complete" ? style.green : style.red;
      const plural = rounds === 1 ? "round" : "rounds";
      this.line(`goal: ${colour(outcome)} ${style.dim(`after ${rounds} ${plural}, ${tokens} tokens`)}`);
      if (reason) this.line(colour(reason));
    }
    if (tracePath) this.line(`${style.dim("trace:")} ${tracePath}`);
  }

  /** One line of activity on stderr, after any open line of assistant text. */
  line(text: string): void {
    this.text.flush();
    this.screen.endLine();
    this.screen.write("err", `${text}\n`);
  }

  /**
   * What the status line shows: the running calls (their description and elapsed time), else
   * the model request in flight; undefined when nothing runs.
   */
  status(): string | undefined {
    const { style } = this.opts;
    const running = [...this.calls.values()].filter((c) => c.startedAt !== undefined || c.description);
    if (running.length > 0) {
      const first = running[0];
      const label = first.description ?? summarizeToolCall(first.name, first.arguments).title;
      const latest = first.lastOutputLine ? style.dim(` · ${first.lastOutputLine}`) : "";
      const since = first.startedAt ?? this.requestStartedAt;
      const elapsed = since !== undefined ? style.dim(` · ${formatElapsed(this.now() - since)}`) : "";
      const more = running.length > 1 ? style.dim(` (+${running.length - 1} more)`) : "";
      return `${label}${latest}${elapsed}${more}`;
    }
    if (this.requestStartedAt !== undefined) {
      return `${style.dim("waiting for the model")}${style.dim(` · ${formatElapsed(this.now() - this.requestStartedAt)}`)}`;
    }
    return undefined;
  }

  private learnTools(tools: readonly ToolSpec[]): void {
    this.describable.clear();
    for (const tool of tools) {
      const properties = (tool.parameters as { properties?: Record<string, unknown> }).properties;
      if (properties && CALL_DESCRIPTION_ARGUMENTS.some((key) => key in properties))
        this.describable.add(tool.name);
    }
  }

  private callState(id: string, name: string | undefined, child: boolean): CallState {
    let state = this.calls.get(id);
    if (!state) {
      state = { name: name ?? "", arguments: "", announced: false, child };
      this.calls.set(id, state);
    }
    if (name) state.name = name;
    return state;
  }

  /**
   * Keeps the last complete line a running call streamed, for the status line (which the spinner
   * redraws on its own): an MCP server's progress, a command's latest line.
   */
  private onPartialOutput(id: string, delta: string): void {
    const state = this.calls.get(id);
    if (!state) return;
    // Only a line's head can be shown: an open line keeps no more than that (with room for the
    // terminal sequences dropped from it) while it grows.
    const head = (text: string) => text.slice(0, STATUS_LINE_MAX_CHARS * 4);
    const open = state.openOutputLine ?? "";
    const end = delta.lastIndexOf("\n");
    if (end === -1) {
      state.openOutputLine = head(open + delta);
      return;
    }
    const before = delta.lastIndexOf("\n", end - 1);
    const complete = before === -1 ? open + delta.slice(0, end) : delta.slice(before + 1, end);
    state.openOutputLine = head(delta.slice(end + 1));
    const line = terminalSafe(head(complete)).trim();
    if (line === "") return;
    state.lastOutputLine =
      line.length > STATUS_LINE_MAX_CHARS ? `${line.slice(0, STATUS_LINE_MAX_CHARS - 1)}…` : line;
  }

  /** Streams a call's arguments; its description is shown the moment its closing quote arrives. */
  private onPartialCall(id: string, name: string | undefined, fragment: string, child: boolean): void {
    const state = this.callState(id, name, child);
    state.arguments += fragment;
    if (state.description !== undefined || !this.describable.has(state.name)) return;
    const description = CALL_DESCRIPTION_ARGUMENTS.map((key) =>
      completedTopLevelString(state.arguments, key),
    ).find((text) => text !== undefined);
    if (description === undefined || description.trim() === "") return;
    state.description = showControls(description);
    if (this.screen.live) {
      this.screen.refresh();
    } else {
      // A pipe or file gets the description as a plain line, once, before the call completes.
      const { style } = this.opts;
      this.line(`${child ? "  ↳ " : ""}${style.cyan("●")} ${style.bold(`${state.name}: ${description}`)}`);
      state.announced = true;
    }
  }
}

/** `850ms`, `4s`, `2m 05s`. */
export function formatElapsed(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, "0")}s`;
}
