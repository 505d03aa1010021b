import type { AskFn, HumanAnswer } from "@penguin/core";
import { commandTextOf, ruleCoversCall, suggestedPrefix, suggestedPrefixOf } from "@penguin/core";
import type { OmniMessage, ToolCallPayload } from "@penguin/protocol";
import { stylePatch } from "../render/diff-colors.js";
import { truncateLine } from "../render/format.js";
import type { Style } from "../render/style.js";
import { showControls } from "../render/terminal-text.js";
import { readCallArguments, summarizeToolCall } from "../render/tool-call-summary.js";

/** What a question at the terminal gives back: the typed line, or that Ctrl-C was pressed. */
export const CTRL_C = Symbol("ctrl-c");
export type Question = (prompt: string, signal?: AbortSignal) => Promise<string | typeof CTRL_C>;

/** How much of each non-command argument the question shows (a command is always shown whole). */
export const ARGUMENT_PREVIEW_CHARS = 300;

/** The command a prefix rule can cover: session rules match prefixes against exec_command only. */
function prefixableCommand(call: OmniMessage<ToolCallPayload>): string | undefined {
  return call.payload.name === "exec_command" ? commandTextOf(call) : undefined;
}

/** One parsed answer: a decision, or a note to show before asking again. */
export type ParsedAnswer = { answer: HumanAnswer } | { retry: string };

/**
 * Reads an answer to an approval question. `y` allows once, `n` denies, Enter takes the
 * default (deny); `a` allows the tool for the rest of the session; `p [prefix]` allows commands
 * that start with the prefix (the suggested one when none is typed). A rule never widens: a
 * prefix that does not cover this very command is refused.
 */
export function parseApprovalAnswer(line: string, call: OmniMessage<ToolCallPayload>): ParsedAnswer {
  const text = line.trim();
  const word = text.split(/\s+/, 1)[0].toLowerCase();
  if (text === "" || word === "n" || word === "no") return { answer: "deny" };
  if (word === "y" || word === "yes") return { answer: "allow" };
  if (word === "a" || word === "always") {
    return { answer: { decision: "allow", remember: { tool: call.payload.name } } };
  }
  if (word === "p" || word === "prefix") {
    const command = prefixableCommand(call);
    if (command === undefined) return { retry: "p applies to exec_command only; answer y, n or a" };
    const typed = text.slice(word.length).trim();
    const prefix = typed || suggestedPrefix(command);
    if (!prefix) {
      return { retry: "this command has several parts, so no single prefix covers it; answer y, n or a" };
    }
    if (!ruleCoversCall({ commandPrefix: prefix }, call)) {
      return {
        retry: `"${showControls(prefix)}" does not cover this command; type p with a prefix of it, or y, n or a`,
      };
    }
    return { answer: { decision: "allow", remember: { commandPrefix: prefix } } };
  }
  const choices = offersPrefix(call) ? "y, n, a, p [prefix]" : "y, n, a";
  return { retry: `"${text}" is not an answer: ${choices} or Enter (= n)` };
}

/** The lines that show one call: tool, description, and its arguments (a command in full). */
export function describeCall(call: OmniMessage<ToolCallPayload>, style: Style): string[] {
  const { name, arguments: argumentsJson } = call.payload;
  const { title } = summarizeToolCall(name, argumentsJson);
  const lines = [`${style.yellow("?")} ${style.bold(title)}`];
  const command = commandTextOf(call);
  const args = readCallArguments(argumentsJson).object;
  if (!args) {
    lines.push(`  arguments: ${truncateLine(showControls(argumentsJson), ARGUMENT_PREVIEW_CHARS)}`);
    return lines;
  }
  // What the model wrote is shown as it is: a control character as a symbol, never acted on.
  if (command !== undefined) lines.push(`  $ ${showControls(command)}`);
  const change = changeLines(name, args, style);
  for (const [key, value] of Object.entries(args)) {
    if (key === "description" || (command !== undefined && (key === "cmd" || key === "chars"))) continue;
    if (change?.shownKeys.includes(key)) continue;
    const shown = typeof value === "string" ? value : JSON.stringify(value);
    const oneLine = showControls(shown.replace(/\n/g, "⏎"));
    lines.push(`  ${showControls(key)}: ${truncateLine(oneLine, ARGUMENT_PREVIEW_CHARS)}`);
  }
  if (change) lines.push(...capLines(change.lines, style).map((line) => `  ${line}`));
  return lines;
}

/** The most lines of a change (an edit's old and new text, a patch) that a question shows. */
export const CHANGE_PREVIEW_LINES = 40;

/**
 * The change a file call asks to make, as coloured diff lines: edit_file's old text as removed
 * lines and its new text as added ones, apply_patch's patch as written.
 */
function changeLines(
  name: string,
  args: Record<string, unknown>,
  style: Style,
): { lines: string[]; shownKeys: string[] } | undefined {
  const { old_string: before, new_string: after, patch } = args;
  if (name === "edit_file" && typeof before === "string" && typeof after === "string") {
    const side = (text: string, sign: string, colour: (s: string) => string) =>
      showControls(text)
        .split("\n")
        .map((line) => colour(`${sign} ${line}`));
    return {
      lines: [...side(before, "-", style.red), ...side(after, "+", style.green)],
      shownKeys: ["old_string", "new_string"],
    };
  }
  if (name === "apply_patch" && typeof patch === "string")
    return { lines: stylePatch(showControls(patch.replace(/\n$/, "")), style), shownKeys: ["patch"] };
  return undefined;
}

function capLines(lines: string[], style: Style): string[] {
  if (lines.length <= CHANGE_PREVIEW_LINES) return lines;
  const more = lines.length - CHANGE_PREVIEW_LINES;
  return [...lines.slice(0, CHANGE_PREVIEW_LINES), style.dim(`… ${more} more lines`)];
}

/**
 * Whether `p` applies to this call: a command with one prefix that covers it. Offering `p` for
 * read_file (or a compound command) would only lead to "p does not apply".
 */
function offersPrefix(call: OmniMessage<ToolCallPayload>): boolean {
  return suggestedPrefixOf(call) !== undefined;
}

/** The keys of the question, after "allow?": `[y/N/p/a]`, without `p` where it does not apply. */
export function questionKeys(call: OmniMessage<ToolCallPayload>): string {
  return offersPrefix(call) ? "[y/N/p/a]" : "[y/N/a]";
}

/**
 * The choices line under a call: every answer the question takes for this call and what it
 * does, naming the prefix and the tool that a rule for the session would allow. `p` is listed
 * only where a prefix covers the command (see {@link offersPrefix}).
 */
export function choicesLine(call: OmniMessage<ToolCallPayload>, style: Style): string {
  const prefix = suggestedPrefixOf(call);
  const choices = ["y allow once", "n deny"];
  if (prefix !== undefined) {
    choices.push(
      `p allow commands starting with "${showControls(prefix)}" for this session ` +
        "(p <prefix> names another prefix of this command)",
    );
  }
  choices.push(`a allow every ${call.payload.name} call for this session`);
  choices.push("Enter = n", "Ctrl-C deny and stop the task");
  return style.dim(`  ${choices.join(" · ")}`);
}

export interface TerminalAskOptions {
  question: Question;
  /** Writes one line of the question to the terminal. */
  print: (line: string) => void;
  style: Style;
  /** The question showed this call (the renderer need not show it again). */
  onAsk?: (call: OmniMessage<ToolCallPayload>) => void;
  /** Ctrl-C at the question: the caller interrupts the task (the call is denied). */
  onCtrlC: () => void;
  /** Whether a human can answer (stdin is a terminal). */
  interactive: boolean;
  /** Why nobody can answer when not `interactive` (default: "stdin is not a terminal"). */
  noTerminal?: string;
}

/**
 * Asks the human at the terminal about one call that read-only or always-ask deferred. With no
 * terminal on stdin nobody can answer, so the call is denied, and stderr says why and how to
 * choose a mode instead.
 */
export function terminalAsk(opts: TerminalAskOptions): AskFn {
  return async (call, request) => {
    const { name } = call.payload;
    if (!opts.interactive) {
      const why = opts.noTerminal ?? "stdin is not a terminal";
      opts.print(
        `penguin: denied ${name}: it needs approval and ${why}; ` +
          "run with --approve allow-all (or deny-all) to decide without a prompt",
      );
      // Recorded as `no_terminal`, not as a human's deny: nobody saw the call.
      return { decision: "deny", noTerminal: why };
    }
    for (const line of describeCall(call, opts.style)) opts.print(line);
    opts.onAsk?.(call);
    opts.print(choicesLine(call, opts.style));
    for (;;) {
      const typed = await opts.question(`  allow? ${questionKeys(call)} `, request.signal);
      if (typed === CTRL_C) {
        opts.onCtrlC();
        return { decision: "deny", reason: "the user pressed Ctrl-C at the question" };
      }
      if (request.signal?.aborted) return "deny";
      const parsed = parseApprovalAnswer(typed, call);
      if ("answer" in parsed) return parsed.answer;
      opts.print(`  ${parsed.retry}`);
    }
  };
}
