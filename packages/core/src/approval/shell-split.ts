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

/** One word as written (`raw`) and after quote removal (`value`). */
export interface ShellWord {
  raw: string;
  value: string;
  /** Whether any part of the word was quoted or escaped. */
  quoted: boolean;
}

/** One simple command: the words it runs with and the redirections it makes. */
export interface CommandPart {
  /** The part's source text, as written. */
  raw: string;
  words: ShellWord[];
  /** Redirection operators with their targets (`>` `out.txt`, `2>&1`, `<<` `EOF`…). */
  redirects: { op: string; target: string }[];
  /** How deeply the part is nested (0 = top level, 1 = inside `$( … )`, `sh -c '…'` …). */
  depth: number;
}

export interface SplitResult {
  parts: CommandPart[];
  /** False when a quote, substitution or subshell was left open (the text is not a whole command). */
  complete: boolean;
}

/** Nested shells go no deeper than this; deeper text is reported as it is, unsplit. */
const MAX_NESTING = 8;

/** Shells whose `-c` argument is a script of its own. */
const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"]);
/** Commands that run the rest of their words as a command (`sudo rm …`, `env X=1 rm …`). */
const WRAPPERS = new Set([
  "sudo",
  "doas",
  "env",
  "nohup",
  "nice",
  "ionice",
  "time",
  "exec",
  "command",
  "builtin",
  "stdbuf",
  "setsid",
  "timeout",
  "xargs",
  "watch",
  "chroot",
  "su",
]);

const SPACE = new Set([" ", "\t", "\r"]);
/** Characters that end an unquoted word. */
const METACHARS = new Set([" ", "\t", "\r", "\n", ";", "&", "|", "(", ")", "<", ">"]);

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
  return new Parser(src, depth, out).run();
}

class Parser {
  private i = 0;
  private complete = true;
  private words: ShellWord[] = [];
  private redirects: { op: string; target: string }[] = [];
  private partStart = -1;
  private partEnd = -1;
  /** Here-document delimiters waiting for the next newline. */
  private heredocs: { delimiter: string; stripTabs: boolean }[] = [];

  constructor(
    private readonly src: string,
    private readonly depth: number,
    private readonly out: CommandPart[],
  ) {}

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

  /**
   * `sh -c 'script'`, `bash -lc "script"`, `sudo -u x sh -c …`, `find … -exec sh -c '…'`, `eval "script"`:
   * the script is a command line too. Every word that names a shell is looked at, wherever it
   * stands: finding more nested parts only ever makes a decision stricter.
   */
  private expandNestedScript(part: CommandPart): void {
    const values = part.words.map((w) => w.value);
    let k = 0;
    // Skip assignments and wrappers (with their options) in front of the command.
    while (k < values.length) {
      const word = values[k];
      if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) k++;
      else if (WRAPPERS.has(basename(word))) {
        k++;
        while (k < values.length && (values[k].startsWith("-") || /^\d+[smhd]?$/.test(values[k]))) k++;
      } else break;
    }
    if (values[k] !== undefined && basename(values[k]) === "eval") {
      const script = values.slice(k + 1).join(" ");
      if (script) this.nested(script);
      return;
    }
    for (let s = 0; s < values.length; s++) {
      if (!SHELLS.has(basename(values[s]))) continue;
      const script = shellScriptOperand(values, s);
      if (script !== undefined) this.nested(script);
    }
  }

  private nested(script: string): void {
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
    if (!new Parser(body, this.depth, this.out).run()) this.complete = false;
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

  /** Reads one word from the current position, removing quotes and escapes. */
  private readWord(): ShellWord {
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
  private nestedInExpansion(body: string): void {
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
    const { src } = this;
    this.i++;
    let value = "";
    while (this.i < src.length) {
      const c = src[this.i];
      if (c === '"') {
        this.i++;
        return value;
      }
      if (c === "\\") {
        const next = src[this.i + 1];
        if (next === "\n") {
          this.i += 2;
        } else if (next !== undefined && '$`"\\'.includes(next)) {
          value += next;
          this.i += 2;
        } else {
          value += c;
          this.i++;
        }
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
    this.complete = false;
    return value;
  }

  /** `$'…'`: backslash escapes as in C; only the common ones matter for matching. */
  private readAnsiC(): string {
    const { src } = this;
    this.i += 2;
    let value = "";
    const simple: Record<string, string> = {
      n: "\n",
      t: "\t",
      r: "\r",
      "\\": "\\",
      "'": "'",
      '"': '"',
      a: "\x07",
      e: "\x1b",
    };
    while (this.i < src.length) {
      const c = src[this.i];
      if (c === "'") {
        this.i++;
        return value;
      }
      if (c === "\\" && this.i + 1 < src.length) {
        const next = src[this.i + 1];
        const hex = /^x([0-9A-Fa-f]{1,2})/.exec(src.slice(this.i + 1));
        if (hex) {
          value += String.fromCharCode(Number.parseInt(hex[1], 16));
          this.i += 1 + hex[0].length;
        } else {
          value += simple[next] ?? `\\${next}`;
          this.i += 2;
        }
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

/** The index of the backtick that closes the one at `open` (skipping `\`` escapes); -1 if none. */
function closingBacktick(text: string, open: number): number {
  let j = open + 1;
  while (j < text.length && text[j] !== "`") j += text[j] === "\\" ? 2 : 1;
  return j < text.length ? j : -1;
}

/** The command inside backticks: `\$`, `` \` `` and `\\` lose their backslash, other escapes stay. */
function unescapeBackticks(body: string): string {
  return body.replace(/\\([$`\\])/g, "$1");
}

/** The script of `sh [options] -c script`: the first operand after an option cluster holding `c`. */
function shellScriptOperand(values: string[], shellIndex: number): string | undefined {
  for (let j = shellIndex + 1; j < values.length; j++) {
    const arg = values[j];
    if (!arg.startsWith("-") || arg === "-" || arg === "--") return undefined;
    if (!arg.startsWith("--") && arg.slice(1).includes("c")) {
      let s = j + 1;
      while (s < values.length && values[s].startsWith("-") && values[s] !== "-") s++;
      return values[s];
    }
  }
  return undefined;
}

function basename(word: string): string {
  const slash = word.lastIndexOf("/");
  return slash < 0 ? word : word.slice(slash + 1);
}

/** The index of the `)` that closes the `(` at `open`, skipping quotes and nested parentheses; -1 if none. */
function findClosingParen(src: string, open: number): number {
  return findClosing(src, open, "(", ")");
}

function findClosing(src: string, open: number, opener: string, closer: string): number {
  let depth = 0;
  let i = open;
  while (i < src.length) {
    const c = src[i];
    if (c === "\\") {
      i += 2;
      continue;
    }
    if (c === "'") {
      const close = src.indexOf("'", i + 1);
      if (close < 0) return -1;
      i = close + 1;
      continue;
    }
    if (c === '"') {
      i++;
      while (i < src.length && src[i] !== '"') i += src[i] === "\\" ? 2 : 1;
      if (i >= src.length) return -1;
      i++;
      continue;
    }
    if (c === opener) depth++;
    else if (c === closer) {
      depth--;
      if (depth === 0) return i;
    }
    i++;
  }
  return -1;
}

/** Characters that read the same quoted or not (no glob, expansion, space or tilde). */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./^-]+$/;

/**
 * A part's text with needless quotes removed (`rm -rf "/"` reads `rm -rf /`), while words whose
 * quoting matters keep it (`echo "rm -rf /"` keeps its quotes, so it never reads as `rm`).
 */
export function normalizedText(part: CommandPart): string {
  const words = part.words.map((w) => (w.quoted && PLAIN_WORD.test(w.value) ? w.value : w.raw));
  const redirects = part.redirects.map((r) => `${r.op}${r.target ? ` ${r.target}` : ""}`);
  return [...words, ...redirects].join(" ");
}
