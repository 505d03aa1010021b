import { clearScreenDown, createInterface, cursorTo, type Interface } from "node:readline";
import { CTRL_C, type Question } from "../prompts/approval-prompt.js";
import type { BottomLine } from "../render/screen.js";

/** The chat's input prompt when no task runs. */
export const IDLE_PROMPT = "› ";

export interface ChatTerminalHandlers {
  /** A line typed while no question is open. */
  line(text: string): void;
  /** Ctrl-C while no question is open. */
  ctrlC(): void;
  /** Ctrl-O: show the last folded output whole. */
  ctrlO(): void;
  /** Ctrl-D on an empty line, or stdin ended. */
  close(): void;
}

/**
 * The chat's terminal: one line editor (history, cursor keys) that stays open for the whole
 * chat. It owns the bottom line: the status of a running task is drawn as its prompt, so a
 * steering message can be typed under a live spinner; an approval question takes the line over
 * until it is answered.
 */
export class ChatTerminal implements BottomLine {
  private readonly rl: Interface;
  private question: { prompt: string; settle: (value: string | typeof CTRL_C) => void } | undefined;
  private closed = false;

  constructor(
    private readonly input: NodeJS.ReadStream,
    private readonly output: NodeJS.WriteStream,
    private readonly handlers: ChatTerminalHandlers,
  ) {
    this.rl = createInterface({ input, output, terminal: true, prompt: IDLE_PROMPT, historySize: 200 });
    this.rl.on("line", (text) => {
      if (this.question) this.question.settle(text);
      else this.handlers.line(text);
    });
    this.rl.on("SIGINT", () => {
      if (this.question) {
        this.output.write("^C\n");
        this.question.settle(CTRL_C);
      } else {
        this.handlers.ctrlC();
      }
    });
    this.rl.on("close", () => {
      this.closed = true;
      this.question?.settle("");
      this.handlers.close();
    });
    input.on("keypress", this.onKeypress);
  }

  private readonly onKeypress = (
    _text: string | undefined,
    key: { ctrl?: boolean; name?: string } | undefined,
  ) => {
    if (key?.ctrl && key.name === "o") this.handlers.ctrlO();
  };

  /** What has been typed on the current line so far. */
  get typed(): string {
    return this.rl.line;
  }

  /** Drops what has been typed on the current line. */
  clearTyped(): void {
    this.rl.write(null, { ctrl: true, name: "u" });
  }

  draw(status: string): void {
    if (this.closed) return;
    const prompt = this.question ? this.question.prompt : status ? `${status}  ${IDLE_PROMPT}` : IDLE_PROMPT;
    this.rl.setPrompt(prompt);
    this.rl.prompt(true);
  }

  erase(): void {
    if (this.closed) return;
    cursorTo(this.output, 0);
    clearScreenDown(this.output);
  }

  /** Asks one line on the bottom line (an approval question); Ctrl-C gives `CTRL_C`. */
  readonly ask: Question = (prompt, signal) =>
    new Promise((resolve) => {
      if (this.closed || signal?.aborted) return resolve("");
      const onAbort = () => this.question?.settle("");
      const settle = (value: string | typeof CTRL_C) => {
        if (this.question?.settle !== settle) return;
        this.question = undefined;
        signal?.removeEventListener("abort", onAbort);
        resolve(value);
      };
      this.question = { prompt, settle };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.draw("");
    });

  close(): void {
    if (this.closed) return;
    this.input.off("keypress", this.onKeypress);
    this.rl.close();
  }
}
