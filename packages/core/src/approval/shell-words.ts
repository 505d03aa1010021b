/** The words and simple commands the shell splitter reports (see shell-split.ts). */

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
