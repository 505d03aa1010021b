import {
  closingBacktick,
  findClosing,
  findClosingParen,
  METACHARS,
  unescapeBackticks,
} from "./shell-scan.js";
import type { ShellWord } from "./shell-words.js";

/** The escapes of `$'…'` that matter for matching; any other stays as written. */
const ANSI_C_ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  e: "\x1b",
};

/**
 * The word reader of the shell splitter: quotes (`'…'`, `"…"`, `$'…'`), backslash escapes,
 * parameter expansions and the command substitutions inside words (`$( … )`, backticks,
 * `$(( … ))`). The commands it finds inside a word go to `nested`; splitting a line into simple
 * commands is the job of the subclass in shell-split.ts.
 */
export abstract class ShellTokenizer {
  /** The position being read in `src`. */
  protected i = 0;
  /** False once a quote, substitution or subshell was left open. */
  protected complete = true;

  constructor(protected readonly src: string) {}

  /** Parses a command found inside the text (a substitution, a script) as parts of its own. */
  protected abstract nested(script: string): void;

  /** Reads one word from the current position, removing quotes and escapes. */
  protected readWord(): ShellWord {
    const { src } = this;
    const start = this.i;
    let value = "";
    let quoted = false;
    while (this.i < src.length) {
      const c = src[this.i];
      if (METACHARS.has(c)) {
        // `<(`/`>(` inside a word are not redirections; everything else ends the word.
        break;
      }
      if (c === "\\") {
        quoted = true;
        if (src[this.i + 1] === "\n") this.i += 2;
        else {
          value += src[this.i + 1] ?? "";
          this.i += 2;
        }
      } else if (c === "'") {
        quoted = true;
        const close = src.indexOf("'", this.i + 1);
        if (close < 0) {
          this.complete = false;
          value += src.slice(this.i + 1);
          this.i = src.length;
        } else {
          value += src.slice(this.i + 1, close);
          this.i = close + 1;
        }
      } else if (c === '"') {
        quoted = true;
        value += this.readDoubleQuoted();
      } else if (c === "$" && src[this.i + 1] === "'") {
        quoted = true;
        value += this.readAnsiC();
      } else if (c === "$" && src[this.i + 1] === "(") {
        value += this.readDollarParen();
      } else if (c === "$" && src[this.i + 1] === "{") {
        value += this.readBraceExpansion();
      } else if (c === "`") {
        value += this.readBackticks();
      } else {
        value += c;
        this.i++;
      }
    }
    return { raw: src.slice(start, this.i), value, quoted };
  }

  /**
   * `${…}`: a parameter expansion, kept as written. Its word (`${X:-word}`, `${X:=word}`, `${X/a/b}` …)
   * can hold substitutions that bash runs, so they become parts of their own.
   */
  private readBraceExpansion(): string {
    const { src } = this;
    const close = findClosing(src, this.i + 1, "{", "}");
    const end = close < 0 ? src.length : close + 1;
    if (close < 0) this.complete = false;
    this.nestedInExpansion(src.slice(this.i + 2, close < 0 ? src.length : close));
    const raw = src.slice(this.i, end);
    this.i = end;
    return raw;
  }

  /**
   * Finds the commands inside the body of a `${…}` or an arithmetic `$((…))`: `$(…)`, backticks
   * and `<(…)`/`>(…)`, at any depth of further `${…}` or `$((…))`. Quotes are not honoured here
   * (bash's rules inside an expansion differ between quoted and unquoted contexts), so a
   * substitution is found wherever it could run: more parts only ever make a decision stricter.
   */
  protected nestedInExpansion(body: string): void {
    let j = 0;
    while (j < body.length) {
      const c = body[j];
      const next = body[j + 1];
      if (c === "\\") {
        j += 2;
      } else if (c === "$" && next === "(" && body[j + 2] !== "(") {
        j = this.nestedUntilParen(body, j + 1);
      } else if ((c === "<" || c === ">") && next === "(") {
        j = this.nestedUntilParen(body, j + 1);
      } else if (c === "`") {
        const close = closingBacktick(body, j);
        if (close < 0) this.complete = false;
        this.nested(unescapeBackticks(body.slice(j + 1, close < 0 ? body.length : close)));
        j = close < 0 ? body.length : close + 1;
      } else {
        // `${`, `$((` and everything else: their insides are scanned as the loop goes on.
        j++;
      }
    }
  }

  /** Parses the command in `text` from the `(` at `open` to its `)`; returns the index after it. */
  private nestedUntilParen(text: string, open: number): number {
    const close = findClosingParen(text, open);
    if (close < 0) this.complete = false;
    this.nested(text.slice(open + 1, close < 0 ? text.length : close));
    return close < 0 ? text.length : close + 1;
  }

  /** `"…"`: `\` escapes only `$`, `` ` ``, `"`, `\` and newline; substitutions still run. */
  private readDoubleQuoted(): string {
    this.i++;
    return this.readUntilQuote('"', (c) => {
      const next = this.src[this.i + 1];
      if (c === "\\") {
        if (next === "\n") {
          this.i += 2;
          return "";
        }
        if (next !== undefined && '$`"\\'.includes(next)) {
          this.i += 2;
          return next;
        }
        return undefined;
      }
      if (c === "$" && next === "(") return this.readDollarParen();
      if (c === "$" && next === "{") return this.readBraceExpansion();
      if (c === "`") return this.readBackticks();
      return undefined;
    });
  }

  /** `$'…'`: backslash escapes as in C; only the common ones matter for matching. */
  private readAnsiC(): string {
    const { src } = this;
    this.i += 2;
    return this.readUntilQuote("'", (c) => {
      if (c !== "\\" || this.i + 1 >= src.length) return undefined;
      const next = src[this.i + 1];
      const hex = /^x([0-9A-Fa-f]{1,2})/.exec(src.slice(this.i + 1));
      if (hex) {
        this.i += 1 + hex[0].length;
        return String.fromCharCode(Number.parseInt(hex[1], 16));
      }
      this.i += 2;
      return ANSI_C_ESCAPES[next] ?? `\\${next}`;
    });
  }

  /**
   * The rest of a quoted text, up to and past its closing `quote`. `special` reads what the kind
   * of quote treats specially at the current position (moving past it and returning its value),
   * or returns undefined for a character taken as it is. A quote left open makes the parse
   * incomplete.
   */
  private readUntilQuote(quote: string, special: (c: string) => string | undefined): string {
    const { src } = this;
    let value = "";
    while (this.i < src.length) {
      const c = src[this.i];
      if (c === quote) {
        this.i++;
        return value;
      }
      const read = special(c);
      if (read !== undefined) {
        value += read;
      } else {
        value += c;
        this.i++;
      }
    }
    this.complete = false;
    return value;
  }

  /**
   * `$( … )` runs a command of its own; `$(( … ))` is arithmetic, whose expression can still hold
   * substitutions that run. Returns the text as written.
   */
  private readDollarParen(): string {
    const { src } = this;
    const open = this.i + 1;
    const close = findClosingParen(src, open);
    const end = close < 0 ? src.length : close + 1;
    if (close < 0) this.complete = false;
    const body = src.slice(open + 1, close < 0 ? src.length : close);
    if (src[open + 1] === "(") this.nestedInExpansion(body);
    else this.nested(body);
    const raw = src.slice(this.i, end);
    this.i = end;
    return raw;
  }

  /** `` `…` ``: an old-style command substitution (`\`` escapes a backtick inside). */
  private readBackticks(): string {
    const { src } = this;
    const close = closingBacktick(src, this.i);
    if (close < 0) this.complete = false;
    const end = close < 0 ? src.length : close + 1;
    this.nested(unescapeBackticks(src.slice(this.i + 1, close < 0 ? src.length : close)));
    const raw = src.slice(this.i, end);
    this.i = end;
    return raw;
  }
}
