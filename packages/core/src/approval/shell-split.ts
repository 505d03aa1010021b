/**
 * A shell-word splitter for approval decisions: it turns a command line into the simple commands
 * it would run, so that the guardrail and the session rules judge every part on its own. It knows
 * quotes (`'…'`, `"…"`, `$'…'`), backslash escapes, comments, line continuations, the list and
 * pipeline operators (`;`, `&&`, `||`, `|`, `|&`, `&`, newline), redirections (including
 * here-documents), subshells `( … )`, command substitutions `$( … )` and backticks, process
 * substitutions `<( … )` / `>( … )`, and the script string of `sh -c` / `bash -c` / `eval`.
 *
 * It does not evaluate anything (no expansion of variables or globs): it reads the text the way
 * a shell would tokenize it. Nested commands are reported as parts of their own.
 */

import { nestedScripts } from "./nested-scripts.js";
import { findClosingParen, METACHARS, SPACE } from "./shell-scan.js";
import { ShellTokenizer } from "./shell-tokenizer.js";
import type { CommandPart, ShellWord, SplitResult } from "./shell-words.js";

export { type CommandPart, normalizedText, type ShellWord, type SplitResult } from "./shell-words.js";

/** Nested shells go no deeper than this; deeper text is reported as it is, unsplit. */
const MAX_NESTING = 8;

export function splitShellCommand(text: string): SplitResult {
  const out: CommandPart[] = [];
  const complete = parseInto(text, 0, out);
  return { parts: out, complete };
}

/** Parses `src` and appends its parts (and those of every nested command) to `out`. */
function parseInto(src: string, depth: number, out: CommandPart[]): boolean {
  if (depth > MAX_NESTING) {
    out.push({ raw: src, words: [{ raw: src, value: src, quoted: false }], redirects: [], depth });
    return false;
  }
  return new CommandSplitter(src, depth, out).run();
}

/**
 * Splits a command line into simple commands: the list and pipeline operators, redirections and
 * here-documents, subshells and function definitions. Words are read by `ShellTokenizer`.
 */
class CommandSplitter extends ShellTokenizer {
  private words: ShellWord[] = [];
  private redirects: { op: string; target: string }[] = [];
  private partStart = -1;
  private partEnd = -1;
  /** Here-document delimiters waiting for the next newline. */
  private heredocs: { delimiter: string; stripTabs: boolean }[] = [];

  constructor(
    src: string,
    private readonly depth: number,
    private readonly out: CommandPart[],
  ) {
    super(src);
  }

  run(): boolean {
    const { src } = this;
    while (this.i < src.length) {
      const c = src[this.i];
      if (SPACE.has(c)) {
        this.i++;
      } else if (c === "\\" && src[this.i + 1] === "\n") {
        this.i += 2;
      } else if (c === "#") {
        // A comment: `#` at the start of a word runs to the end of the line.
        while (this.i < src.length && src[this.i] !== "\n") this.i++;
      } else if (c === "\n") {
        this.finishPart();
        this.i++;
        this.skipHeredocBodies();
      } else if (c === ";" || c === "|" || (c === "&" && src[this.i + 1] !== ">")) {
        this.finishPart();
        this.i += this.operatorLength();
      } else if (c === "(") {
        this.openParen();
      } else if (c === ")") {
        // A stray closing parenthesis (e.g. a `case` pattern): not a command of its own.
        this.mark(this.i, this.i + 1);
        this.i++;
      } else if (this.atRedirect()) {
        this.readRedirect();
      } else {
        const start = this.i;
        const word = this.readWord();
        this.mark(start, this.i);
        this.words.push(word);
      }
    }
    this.finishPart();
    return this.complete;
  }

  private operatorLength(): number {
    const two = this.src.slice(this.i, this.i + 2);
    return two === "&&" || two === "||" || two === ";;" || two === "|&" || two === ";&" ? 2 : 1;
  }

  private mark(start: number, end: number): void {
    if (this.partStart < 0) this.partStart = start;
    this.partEnd = end;
  }

  private finishPart(): void {
    if (this.words.length > 0 || this.redirects.length > 0) {
      const part: CommandPart = {
        raw: this.src.slice(this.partStart, this.partEnd),
        words: this.words,
        redirects: this.redirects,
        depth: this.depth,
      };
      this.out.push(part);
      this.expandNestedScript(part);
    }
    this.words = [];
    this.redirects = [];
    this.partStart = -1;
    this.partEnd = -1;
  }

  /** The scripts a part runs as command lines of their own (`sh -c`, `eval` …) are parsed too. */
  private expandNestedScript(part: CommandPart): void {
    for (const script of nestedScripts(part.words.map((w) => w.value))) this.nested(script);
  }

  protected nested(script: string): void {
    if (!parseInto(script, this.depth + 1, this.out)) this.complete = false;
  }

  /** `(` in command position opens a subshell; `name()` is a function definition. */
  private openParen(): void {
    const { src } = this;
    if (this.words.length > 0 && src[this.i + 1] === ")") {
      const last = this.words[this.words.length - 1];
      last.raw += "()";
      last.value += "()";
      this.mark(this.i, this.i + 2);
      this.i += 2;
      return;
    }
    const arithmetic = src[this.i + 1] === "(";
    const close = findClosingParen(src, this.i);
    const end = close < 0 ? src.length : close + 1;
    if (close < 0) this.complete = false;
    const body = src.slice(this.i + 1, close < 0 ? src.length : close);
    // A subshell's commands are parts of their own; the current part stays as it was. An
    // arithmetic command `(( … ))` runs only the substitutions in its expression.
    if (arithmetic) this.nestedInExpansion(body);
    else this.nestedBody(body);
    this.mark(this.i, end);
    this.i = end;
  }

  /** The body of a subshell is the same shell at the same nesting level as its parent. */
  private nestedBody(body: string): void {
    if (!new CommandSplitter(body, this.depth, this.out).run()) this.complete = false;
  }

  private atRedirect(): boolean {
    const c = this.src[this.i];
    if (c === "<" || c === ">" || (c === "&" && this.src[this.i + 1] === ">")) return true;
    // `2>file`, `{fd}>file`: a number or `{name}` right before the operator, as a word of its own.
    return this.isWordStart() && /^(?:\d+|\{[A-Za-z_][A-Za-z0-9_]*\})(?:<|>)/.test(this.src.slice(this.i));
  }

  private isWordStart(): boolean {
    const prev = this.src[this.i - 1];
    return prev === undefined || METACHARS.has(prev);
  }

  private readRedirect(): void {
    const { src } = this;
    const start = this.i;
    const m = /^(\d+|\{[A-Za-z_][A-Za-z0-9_]*\})?(<<<|<<-|<<|<>|<&|>&|>>|>\||&>>|&>|<|>)/.exec(
      src.slice(this.i),
    );
    if (!m) {
      this.i++;
      return;
    }
    // Process substitution `<( … )` / `>( … )`: a word whose body is a command of its own.
    if ((m[2] === "<" || m[2] === ">") && !m[1] && src[this.i + 1] === "(") {
      const close = findClosingParen(src, this.i + 1);
      const end = close < 0 ? src.length : close + 1;
      if (close < 0) this.complete = false;
      this.nested(src.slice(this.i + 2, close < 0 ? src.length : close));
      const raw = src.slice(this.i, end);
      this.words.push({ raw, value: raw, quoted: false });
      this.mark(start, end);
      this.i = end;
      return;
    }
    const op = m[0];
    this.i += op.length;
    while (this.i < src.length && (src[this.i] === " " || src[this.i] === "\t")) this.i++;
    let target = "";
    if (this.i < src.length && !METACHARS.has(src[this.i])) {
      const word = this.readWord();
      target = word.value;
      if (m[2] === "<<" || m[2] === "<<-")
        this.heredocs.push({ delimiter: word.value, stripTabs: m[2] === "<<-" });
    }
    this.redirects.push({ op, target });
    this.mark(start, this.i);
  }

  /** Here-document bodies are data, not commands: skip them up to their delimiter lines. */
  private skipHeredocBodies(): void {
    const { src } = this;
    for (const doc of this.heredocs) {
      while (this.i < src.length) {
        const lineEnd = src.indexOf("\n", this.i);
        const end = lineEnd < 0 ? src.length : lineEnd;
        let line = src.slice(this.i, end);
        if (doc.stripTabs) line = line.replace(/^\t+/, "");
        this.i = lineEnd < 0 ? src.length : lineEnd + 1;
        if (line === doc.delimiter) break;
      }
    }
    this.heredocs = [];
  }
}
