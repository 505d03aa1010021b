/**
 * Tests a regular expression against each line of a stream of text that arrives in arbitrary
 * chunks: a line split across two chunks is tested whole, and the line still being written is
 * tested too (a server that prints "listening" without a newline yet). The pattern is tested per
 * line, never across lines, so `^` and `$` mean the start and end of a line.
 *
 * The unfinished line is kept up to `maxLineChars` (its newest characters), so a command that
 * prints megabytes without a newline cannot make the matcher hold them all.
 */
export class LineMatcher {
  private partial = "";
  private matchedLine: string | undefined;

  constructor(
    private readonly pattern: RegExp,
    private readonly maxLineChars: number,
  ) {}

  /** The first line that matched, once one has. */
  get match(): string | undefined {
    return this.matchedLine;
  }

  /** Feeds more text; true once a line has matched (further text is ignored). */
  feed(text: string): boolean {
    if (this.matchedLine !== undefined) return true;
    const lines = (this.partial + text).split("\n");
    this.partial = lines.pop() as string;
    for (const line of lines) {
      if (this.test(line)) return true;
    }
    if (this.partial.length > this.maxLineChars) this.partial = this.partial.slice(-this.maxLineChars);
    return this.partial.length > 0 && this.test(this.partial);
  }

  private test(line: string): boolean {
    const text = line.endsWith("\r") ? line.slice(0, -1) : line;
    const candidate = text.length > this.maxLineChars ? text.slice(-this.maxLineChars) : text;
    // A global or sticky flag would make test() stateful across lines; the pattern is compiled without them.
    if (!this.pattern.test(candidate)) return false;
    this.matchedLine = candidate;
    return true;
  }
}

/** Compiles wait_job's `pattern`, or says why it is not a regular expression. */
export function compilePattern(source: string): { ok: true; pattern: RegExp } | { ok: false; error: string } {
  try {
    return { ok: true, pattern: new RegExp(source, "u") };
  } catch (unicodeError) {
    // Patterns written for other engines (`\-`, `\/`) are often valid without the u flag.
    try {
      return { ok: true, pattern: new RegExp(source) };
    } catch {
      return {
        ok: false,
        error: `pattern is not a valid JavaScript regular expression: ${(unicodeError as Error).message}`,
      };
    }
  }
}
