import { MarkdownAnsi } from "./markdown-ansi.js";
import { createStyle } from "./style.js";

/** Markdown source to the terminal lines that show it (no final newline). */
export type MarkdownToTerminal = (markdown: string) => string;

let loading: Promise<MarkdownToTerminal> | undefined;

/**
 * The Markdown renderer, loaded on first need: marked is imported only when a terminal shows
 * the model's text, never by `penguin --version` or a run whose output is a pipe.
 */
export function loadMarkdownToTerminal(): Promise<MarkdownToTerminal> {
  loading ??= import("marked").then(({ Lexer }) => {
    const ansi = new MarkdownAnsi(createStyle(true));
    return (markdown: string) => ansi.blocks(Lexer.lex(markdown, { gfm: true })).join("\n");
  });
  return loading;
}
