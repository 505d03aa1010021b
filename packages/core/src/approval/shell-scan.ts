/** Where things end in shell text: words, quotes, backticks and parentheses (for shell-split.ts). */

export const SPACE = new Set([" ", "\t", "\r"]);
/** Characters that end an unquoted word. */
export const METACHARS = new Set([" ", "\t", "\r", "\n", ";", "&", "|", "(", ")", "<", ">"]);

/** The index of the backtick that closes the one at `open` (skipping `\`` escapes); -1 if none. */
export function closingBacktick(text: string, open: number): number {
  let j = open + 1;
  while (j < text.length && text[j] !== "`") j += text[j] === "\\" ? 2 : 1;
  return j < text.length ? j : -1;
}

/** The command inside backticks: `\$`, `` \` `` and `\\` lose their backslash, other escapes stay. */
export function unescapeBackticks(body: string): string {
  return body.replace(/\\([$`\\])/g, "$1");
}

/** The index of the `)` that closes the `(` at `open`, skipping quotes and nested parentheses; -1 if none. */
export function findClosingParen(src: string, open: number): number {
  return findClosing(src, open, "(", ")");
}

export function findClosing(src: string, open: number, opener: string, closer: string): number {
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
