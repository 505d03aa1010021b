import { posix } from "node:path";

// "include globs matched against base names": `*` (any run of characters), `?` (one character),
// `[abc]`/`[a-z]`/`[!abc]` (one of, or none of), `{ts,tsx}` (alternatives). Everything else is
// literal. A base name has no `/`, so there is no `**`.

// Globs are matched by hand, not compiled to a RegExp: `*a*a*a*a*a*a*a*a*a*a*a*b` as a RegExp
// backtracks for hours against a long name of a's, and a glob comes from the model. Braces are
// expanded into alternatives, and each alternative is matched in O(name × glob) steps.

/** Brace expansion is capped: `{a,b}{c,d}…` doubles with each group. */
const MAX_GLOB_ALTERNATIVES = 1_024;

/** One character of a name, tested by one glob token. */
type CharTest = (code: number) => boolean;
/** A glob without braces: `*`, or a test of one character (literal, `?` or a class). */
type Token = "*" | CharTest;

/** `[…]` at `glob[open]`: its test and the index of its `]`. */
function parseClass(glob: string, open: number): { test: CharTest; close: number } {
  // A `]` right after `[` (or `[!`) is a member, as in shells.
  const close = glob.indexOf("]", open + 2);
  if (close === -1) throw new Error(`unclosed "[" in glob ${JSON.stringify(glob)}`);
  let body = glob.slice(open + 1, close);
  const negate = body.startsWith("!") || body.startsWith("^");
  if (negate) body = body.slice(1);
  const ranges: [number, number][] = [];
  for (let i = 0; i < body.length; i += 1) {
    const low = body.charCodeAt(i);
    if (body[i + 1] === "-" && i + 2 < body.length) {
      const high = body.charCodeAt(i + 2);
      if (high < low)
        throw new Error(`range "${body.slice(i, i + 3)}" is backwards in glob ${JSON.stringify(glob)}`);
      ranges.push([low, high]);
      i += 2;
    } else ranges.push([low, low]);
  }
  const test: CharTest = (code) => ranges.some(([low, high]) => code >= low && code <= high) !== negate;
  return { test, close };
}

/** Every alternative of `glob` as a token list; throws with a readable message on a broken glob. */
function expand(glob: string): Token[][] {
  let at = 0;
  // A sequence up to the end, or (inside braces) up to its `,` or `}`; returns its alternatives.
  const sequence = (inBraces: boolean): Token[][] => {
    let alternatives: Token[][] = [[]];
    const append = (token: Token) => {
      for (const alternative of alternatives) alternative.push(token);
    };
    while (at < glob.length) {
      const c = glob[at]!;
      if (inBraces && (c === "," || c === "}")) return alternatives;
      at += 1;
      if (c === "*") append("*");
      else if (c === "?") append(() => true);
      else if (c === "[") {
        const parsed = parseClass(glob, at - 1);
        append(parsed.test);
        at = parsed.close + 1;
      } else if (c === "{") {
        const options: Token[][] = [];
        for (;;) {
          options.push(...sequence(true));
          if (at >= glob.length) throw new Error(`unclosed "{" in glob ${JSON.stringify(glob)}`);
          at += 1;
          if (glob[at - 1] === "}") break;
        }
        if (alternatives.length * options.length > MAX_GLOB_ALTERNATIVES) {
          throw new Error(`glob ${JSON.stringify(glob)} has more than ${MAX_GLOB_ALTERNATIVES} alternatives`);
        }
        alternatives = alternatives.flatMap((head) => options.map((tail) => [...head, ...tail]));
      } else {
        const literal = c === "\\" && at < glob.length ? glob[at++]! : c;
        const code = literal.charCodeAt(0);
        append((other) => other === code);
      }
    }
    return alternatives;
  };
  return sequence(false);
}

/**
 * Whether `name` matches `tokens`, in O(name × tokens): on a mismatch only the latest `*` takes
 * one more character (an earlier `*` never needs to, since the latest one can absorb it).
 */
function matchesTokens(tokens: readonly Token[], name: string): boolean {
  let t = 0;
  let n = 0;
  let star = -1;
  let starAt = 0;
  while (n < name.length) {
    const token = tokens[t];
    if (token === "*") {
      star = t;
      starAt = n;
      t += 1;
    } else if (token?.(name.charCodeAt(n))) {
      t += 1;
      n += 1;
    } else if (star !== -1) {
      t = star + 1;
      starAt += 1;
      n = starAt;
    } else return false;
  }
  while (tokens[t] === "*") t += 1;
  return t === tokens.length;
}

/** A matcher of base names against any of `globs`; every name matches when there are none. */
export function baseNameMatcher(globs: readonly string[]): (name: string) => boolean {
  if (globs.length === 0) return () => true;
  const alternatives = globs.flatMap(expand);
  return (name) => alternatives.some((tokens) => matchesTokens(tokens, name));
}

/**
 * Why `globs` cannot be base-name globs, when one has a `/` (`src/**\/*.ts` would silently match
 * nothing, and "no matches" would read as "not in the code"); undefined when all are fine. The
 * advice names the path (under the call's `searchPath`) and include that search what it meant.
 */
export function pathGlobProblem(globs: readonly string[], searchPath = "."): string | undefined {
  const glob = globs.find((g) => g.includes("/"));
  if (glob === undefined) return undefined;
  const cut = glob.lastIndexOf("/");
  const base = glob.slice(cut + 1) || "*";
  // The directory part up to its first wildcard segment: `src/**` and `src/*/x` both start at src.
  const segments = glob.slice(0, cut).split("/");
  const wild = segments.findIndex((segment) => /[*?[{]/.test(segment));
  const plain = (wild === -1 ? segments : segments.slice(0, wild)).join("/");
  const dir = glob.startsWith("/") ? plain || "/" : posix.join(searchPath, plain);
  return `include matches file base names only, and ${JSON.stringify(glob)} has a "/": pass path: ${JSON.stringify(dir)} and include: [${JSON.stringify(base)}].`;
}
