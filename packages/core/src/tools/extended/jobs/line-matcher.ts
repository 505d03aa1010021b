import { type MatchOptions, RegexMatcher } from "../regex-matcher.js";

/** What feeding more text came to. */
export type FeedOutcome =
  /** A line matched; `match` holds it. */
  | "matched"
  /** No line matched yet. */
  | "waiting"
  /** The pattern ran longer than its budget on one line (its worker was ended). */
  | "too-slow"
  /** The signal aborted the test. */
  | "aborted"
  /** The worker running the pattern died. */
  | "crashed";

/**
 * Tests a regular expression against each line of a stream of text that arrives in arbitrary
 * chunks: a line split across two chunks is tested whole, and the line still being written is
 * tested too (a server that prints "listening" without a newline yet). The pattern is tested per
 * line, never across lines, so `^` and `$` mean the start and end of a line. The tests run in a
 * worker thread (regex-matcher.ts), so a catastrophic pattern costs its budget, not the process.
 *
 * The unfinished line is kept up to `maxLineChars` (its newest characters), so a command that
 * prints megabytes without a newline cannot make the matcher hold them all.
 */
export class LineMatcher {
  private partial = "";
  private matchedLine: string | undefined;

  constructor(
    private readonly pattern: RegexMatcher,
    private readonly maxLineChars: number,
  ) {}

  /** The first line that matched, once one has. */
  get match(): string | undefined {
    return this.matchedLine;
  }

  /** Feeds more text and tests the lines it completes, and the unfinished one (further text is ignored once one matched). */
  async feed(text: string, options: MatchOptions): Promise<FeedOutcome> {
    if (this.matchedLine !== undefined) return "matched";
    const lines = (this.partial + text).split("\n");
    this.partial = lines.pop() as string;
    if (this.partial.length > this.maxLineChars) this.partial = this.partial.slice(-this.maxLineChars);
    if (this.partial.length > 0) lines.push(this.partial);
    const candidates = lines.map((line) => this.candidate(line));
    const answer = await this.pattern.firstMatchingLine(candidates, options);
    if (!answer.ok) return answer.reason;
    if (answer.index === -1) return "waiting";
    this.matchedLine = candidates[answer.index];
    return "matched";
  }

  /** Ends the worker behind the pattern. */
  dispose(): void {
    this.pattern.dispose();
  }

  private candidate(line: string): string {
    const text = line.endsWith("\r") ? line.slice(0, -1) : line;
    return text.length > this.maxLineChars ? text.slice(-this.maxLineChars) : text;
  }
}

/** Compiles wait_job's `pattern`, or says why it is not a regular expression. */
export function compilePattern(
  source: string,
): { ok: true; pattern: RegexMatcher } | { ok: false; error: string } {
  const unicode = RegexMatcher.compile(source, "u");
  if (unicode.ok) return { ok: true, pattern: unicode.matcher };
  // Patterns written for other engines (`\-`, `\/`) are often valid without the u flag.
  const plain = RegexMatcher.compile(source, "");
  if (plain.ok) return { ok: true, pattern: plain.matcher };
  return { ok: false, error: `pattern is not a valid JavaScript regular expression: ${unicode.error}` };
}
