import type { OnAsk, UserQuestion } from "@penguin/core";
import type { Style } from "../render/style.js";
import { printableText } from "../render/terminal-text.js";
import { CTRL_C, type Question } from "./approval-prompt.js";

export interface TerminalAnswererOptions {
  /** Reads one line at the terminal (the reader the approval question uses). */
  question: Question;
  /** Writes one line to the terminal. */
  print: (line: string) => void;
  style: Style;
  /** Ctrl-C at the question: the caller interrupts the task. */
  onCtrlC: () => void;
  /** Whether a human can answer (stdin is a terminal). */
  interactive: boolean;
  /** Why nobody can answer when not `interactive` (default: "stdin is not a terminal"). */
  noTerminal?: string;
}

/** The lines that show the agent's question: its id, then its text, indented. */
export function describeQuestion(question: UserQuestion, style: Style): string[] {
  return [
    `${style.yellow("?")} ${style.bold(`the agent asks (${question.id}):`)}`,
    // The model wrote it: no escape sequence or control character of it reaches the terminal.
    ...printableText(question.text)
      .split("\n")
      .map((line) => `  ${line}`),
  ];
}

/**
 * Answers the agent's questions (`ask`) at the terminal: shows the question and reads one line.
 * With no terminal on stdin nobody can type an answer, so the call fails at once (never waits)
 * with a message the model reads, and stderr says so too.
 */
export function terminalAnswerer(opts: TerminalAnswererOptions): OnAsk {
  return async (question) => {
    if (!opts.interactive) {
      const why = opts.noTerminal ?? "stdin is not a terminal";
      opts.print(`penguin: the agent asked ${question.id} and nobody can answer: ${why}`);
      throw new Error(
        `no one can answer questions in this session: ${why}, so nobody can type an answer. Go on with what you know, or end your reply with the question so the user reads it.`,
      );
    }
    for (const line of describeQuestion(question, opts.style)) opts.print(line);
    for (;;) {
      const typed = await opts.question("  answer: ", question.signal);
      if (typed === CTRL_C) {
        opts.onCtrlC();
        throw new Error("the user pressed Ctrl-C at the question");
      }
      // Timed out or interrupted: the answer is not needed any more.
      if (question.signal.aborted) return "";
      if (typed.trim() !== "") return typed;
      opts.print(opts.style.dim("  type an answer and press Enter (Ctrl-C interrupts the task)"));
    }
  };
}
