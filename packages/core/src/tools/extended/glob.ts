import { posix } from "node:path";

// "include globs matched against base names": `*` (any run of characters), `?` (one character),
// `[abc]`/`[a-z]`/`[!abc]` (one of, or none of), `{ts,tsx}` (alternatives). Everything else is
// literal. A base name has no `/`, so there is no `**`.

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** A glob as the source of an anchored RegExp; throws with a readable message on a broken glob. */
function globSource(glob: string): string {
  let out = "";
  let depth = 0;
  for (let i = 0; i < glob.length; i += 1) {
    const c = glob[i]!;
    if (c === "*") out += ".*";
    else if (c === "?") out += ".";
    else if (c === "[") {
      const close = glob.indexOf("]", i + 2);
      if (close === -1) throw new Error(`unclosed "[" in glob ${JSON.stringify(glob)}`);
      let body = glob.slice(i + 1, close);
      const negate = body.startsWith("!") || body.startsWith("^");
      if (negate) body = body.slice(1);
      out += `[${negate ? "^" : ""}${body.replace(/[\\\]^]/g, "\\$&")}]`;
      i = close;
    } else if (c === "{") {
      depth += 1;
      out += "(?:";
    } else if (c === "}" && depth > 0) {
      depth -= 1;
      out += ")";
    } else if (c === "," && depth > 0) out += "|";
    else if (c === "\\" && i + 1 < glob.length) {
      i += 1;
      out += escapeRegExp(glob[i]!);
    } else out += escapeRegExp(c);
  }
  if (depth > 0) throw new Error(`unclosed "{" in glob ${JSON.stringify(glob)}`);
  return out;
}

/** A matcher of base names against any of `globs`; every name matches when there are none. */
export function baseNameMatcher(globs: readonly string[]): (name: string) => boolean {
  if (globs.length === 0) return () => true;
  const pattern = new RegExp(`^(?:${globs.map(globSource).join("|")})$`, "s");
  return (name) => pattern.test(name);
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
