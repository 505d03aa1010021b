/**
 * Arguments that hold a call's one-sentence description: `description` (the command and
 * subagent tools) and `purpose` (the extended toolset's run_command). Front ends show it while
 * the call runs, and as soon as it streams in.
 */
export const CALL_DESCRIPTION_KEYS: readonly string[] = ["description", "purpose"];

/** What has arrived of a string argument, and whether its closing quote has. */
export interface StreamingString {
  value: string;
  complete: boolean;
}

/**
 * Reads a top-level string property out of a tool call's arguments JSON that may be cut
 * anywhere (the `partial_tool_call` deltas so far): `{"description": "Run the te` gives
 * `{value: "Run the te", complete: false}` for `description`. Strings and objects nested in
 * other values are skipped, so `{"cmd": "echo description", ...}` does not match. Undefined
 * until the value has started, and for anything that is not an object or not a string there.
 * An invalid escape ends what can be read (it is never `complete`).
 */
export function readStreamingArgument(
  argumentsJson: string,
  keys: readonly string[],
): StreamingString | undefined {
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
    if (keys.includes(key.value)) {
      if (text[i] !== '"') return undefined;
      const value = readString(text, i);
      return { value: value.value, complete: value.closed };
    }
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

/** The JSON string opening at `start` (a `"`), escapes decoded; it may be unterminated. */
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
    if (next === "u") {
      const hex = text.slice(i + 2, i + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) break;
      value += String.fromCharCode(Number.parseInt(hex, 16));
      i += 6;
      continue;
    }
    // Cut inside an escape, or an escape JSON does not have: what came before it is all there is.
    if (next === undefined || !(next in ESCAPES)) break;
    value += ESCAPES[next];
    i += 2;
  }
  return { value, closed: false, end: text.length };
}

/** The index after the JSON value at `start`, or undefined when the text ends inside it. */
function skipValue(text: string, start: number): number | undefined {
  let depth = 0;
  let i = start;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') {
      const string = readString(text, i);
      if (!string.closed) return undefined;
      i = string.end;
      if (depth === 0) return i;
      continue;
    }
    if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") {
      if (depth === 0) return i; // the end of the enclosing object
      depth--;
      if (depth === 0) return i + 1;
    } else if (depth === 0 && (ch === "," || SPACE.has(ch))) return i;
    i++;
  }
  return undefined;
}
