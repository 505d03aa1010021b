import { MarkdownBlocks } from "./markdown-blocks.js";
import { loadMarkdownToTerminal, type MarkdownToTerminal } from "./markdown-terminal.js";
import type { Screen } from "./screen.js";
import { holdUnfinishedSequence, printableText } from "./terminal-text.js";

/**
 * How the model's text is printed on stdout:
 * - `exact`: as the model wrote it, delta by delta (stdout is a pipe or a file);
 * - `plain`: as written but without control characters (a terminal, with NO_COLOR set);
 * - `markdown`: rendered for a terminal, a block at a time (see markdown-blocks.ts).
 */
export type TextMode = "exact" | "plain" | "markdown";

/** The mode for a stdout: Markdown on a terminal unless NO_COLOR (https://no-color.org) is set. */
export function textModeFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): TextMode {
  if (stream.isTTY !== true) return "exact";
  return env.NO_COLOR !== undefined && env.NO_COLOR !== "" ? "plain" : "markdown";
}

/** Prints one message of the model's text after another, in the given mode. */
export class AssistantText {
  private readonly blocks = new MarkdownBlocks();
  private toTerminal: MarkdownToTerminal | undefined;
  /** Blocks of the current message already printed (the next one is set apart by a blank line). */
  private printed = 0;
  /** Plain mode: the start of an escape sequence that the next delta may complete. */
  private held = "";

  constructor(
    private readonly mode: TextMode,
    private readonly screen: Screen,
  ) {}

  /** Loads the Markdown renderer when this mode needs it; without it, blocks print as plain text. */
  async prepare(): Promise<void> {
    if (this.mode !== "markdown" || this.toTerminal) return;
    try {
      this.toTerminal = await loadMarkdownToTerminal();
    } catch {
      // An install without marked still shows the model's text, as written.
    }
  }

  delta(text: string): void {
    if (this.mode === "exact") this.screen.write("out", text);
    else if (this.mode === "plain") {
      const { ready, held } = holdUnfinishedSequence(this.held + text);
      this.held = held;
      this.screen.write("out", printableText(ready));
    } else this.print(this.blocks.push(text));
  }

  /** The message ended: its last block prints, and the line is ended. */
  end(): void {
    this.flush();
    this.printed = 0;
    this.screen.endLine();
  }

  /** Prints what waits for its block to complete: something else is about to be printed. */
  flush(): void {
    if (this.held) this.screen.write("out", printableText(this.held));
    this.held = "";
    if (this.blocks.hasPending) this.print(this.blocks.flush());
  }

  /** Markdown as terminal lines; as written when there is no renderer or it fails on this text. */
  private render(markdown: string): string {
    if (this.toTerminal) {
      try {
        return this.toTerminal(markdown);
      } catch {
        // A parser error must not cost the text: it is shown as written.
      }
    }
    return markdown.replace(/\n+$/, "");
  }

  private print(markdown: string): void {
    if (markdown.trim() === "") return;
    const safe = printableText(markdown);
    const rendered = this.render(safe);
    if (rendered.trim() === "") return;
    this.screen.endLine();
    this.screen.write("out", `${this.printed > 0 ? "\n" : ""}${rendered}\n`);
    this.printed += 1;
  }
}
