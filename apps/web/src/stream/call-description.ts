/**
 * The arguments that hold a call's one-sentence description: `description`, or the `purpose` of
 * the extended toolset's run_command (recorded with its job, and shown the same way).
 */
const DESCRIPTION_KEYS = new Set(["description", "purpose"]);

/**
 * The `description` (or `purpose`) argument of a tool call, read from its arguments JSON while it streams in.
 *
 * "The command/subagent tools take a description argument: one model-written sentence about what
 * the call is doing, shown by the CLI and Web UI while the call runs [...] the model is also
 * asked to emit it first." So the UI shows it as soon as its first characters arrive: this reads
 * a top-level `"description"` string out of a JSON object that may be cut anywhere, and returns
 * what has arrived of its value (undefined until the value has started). Nested objects and
 * strings that merely contain the word are skipped. Malformed JSON yields what was readable.
 */
export function callDescription(argumentsJson: string): string | undefined {
  const text = argumentsJson;
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
    if (text[i] !== '"') return undefined;
    const key = readString(text, i);
    if (!key.closed) return undefined;
    i = skipSpace(text, key.end);
    if (text[i] !== ":") return undefined;
    i = skipSpace(text, i + 1);
    if (i >= text.length) return undefined;
    if (DESCRIPTION_KEYS.has(key.value)) {
      return text[i] === '"' ? readString(text, i).value : undefined;
    }
    const end = skipValue(text, i);
    if (end === undefined) return undefined;
    i = end;
  }
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && /\s/.test(text[i])) i++;
  return i;
}

const ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

/** Reads the JSON string opening at `start` (a `"`), decoding escapes; it may be unterminated. */
function readString(text: string, start: number): { value: string; closed: boolean; end: number } {
  let value = "";
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') return { value, closed: true, end: i + 1 };
    if (ch !== "\\") {
      value += ch;
      i++;
      continue;
    }
    const next = text[i + 1];
    if (next === undefined) break; // cut inside an escape: show what came before it
    if (next === "u") {
      const hex = text.slice(i + 2, i + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) break;
      value += String.fromCharCode(Number.parseInt(hex, 16));
      i += 6;
      continue;
    }
    value += ESCAPES[next] ?? next;
    i += 2;
  }
  return { value, closed: false, end: text.length };
}

/** The index after the JSON value at `start`, or undefined when the text ends inside it. */
function skipValue(text: string, start: number): number | undefined {
  if (text[start] === '"') {
    const string = readString(text, start);
    return string.closed ? string.end : undefined;
  }
  let depth = 0;
  let i = start;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') {
      const string = readString(text, i);
      if (!string.closed) return undefined;
      i = string.end;
      continue;
    }
    if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") {
      if (depth === 0) return i; // the end of the enclosing object
      depth--;
      if (depth === 0) return i + 1;
    } else if (ch === "," && depth === 0) return i;
    i++;
  }
  return undefined;
}
