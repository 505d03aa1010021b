/**
 * Reads one top-level string property out of a JSON object that is still streaming in, e.g.
 * `{"description": "Run the tests", "cmd": "npm te` gives "Run the tests" for `description`.
 * The value is returned only once its closing quote has arrived, so the terminal never shows
 * half a sentence; anything that is not a well-formed prefix of an object yields undefined.
 */
export function completedTopLevelString(partialJson: string, key: string): string | undefined {
  const text = partialJson;
  let i = skipSpace(text, 0);
  if (text[i] !== "{") return undefined;
  i++;
  for (;;) {
    i = skipSpace(text, i);
    if (i >= text.length || text[i] === "}") return undefined;
    if (text[i] === ",") {
      i++;
      continue;
    }
    const name = readString(text, i);
    if (!name) return undefined;
    i = skipSpace(text, name.end);
    if (text[i] !== ":") return undefined;
    i = skipSpace(text, i + 1);
    if (i >= text.length) return undefined;
    if (text[i] === '"') {
      const value = readString(text, i);
      if (!value) return undefined;
      if (name.value === key) return value.value;
      i = value.end;
      continue;
    }
    if (name.value === key) return undefined;
    const end = skipValue(text, i);
    if (end === undefined) return undefined;
    i = end;
  }
}

const SPACE = new Set([" ", "\t", "\n", "\r"]);

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && SPACE.has(text[i])) i++;
  return i;
}

/** A complete string literal starting at `from` (a quote), decoded; undefined while it is open. */
function readString(text: string, from: number): { value: string; end: number } | undefined {
  if (text[from] !== '"') return undefined;
  let i = from + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === "\\") {
      i += 2;
      continue;
    }
    if (c === '"') {
      try {
        return { value: JSON.parse(text.slice(from, i + 1)) as string, end: i + 1 };
      } catch {
        return undefined;
      }
    }
    i++;
  }
  return undefined;
}

/** The end of a complete non-string value (number, literal, array, object); undefined while open. */
function skipValue(text: string, from: number): number | undefined {
  let depth = 0;
  let i = from;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      const s = readString(text, i);
      if (!s) return undefined;
      i = s.end;
      if (depth === 0) return i;
      continue;
    }
    if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      if (depth === 0) return i;
      depth--;
      if (depth === 0) return i + 1;
    } else if (depth === 0 && (c === "," || SPACE.has(c))) return i;
    i++;
  }
  return undefined;
}
