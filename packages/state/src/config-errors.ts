import { readFile } from "node:fs/promises";
import { errorMessage } from "@penguin/protocol";
import { type Document, isMap, isNode, isPair, isScalar, LineCounter, parseDocument } from "yaml";
import type { z } from "zod";
import { readYamlMemo, rememberCheckedConfig, writeYamlMemo } from "./yaml-memo.js";

/**
 * One problem with a config file, precise enough to fix without guessing: where it is (1-based
 * line and column; both 0 when the problem is the file as a whole, e.g. it cannot be read), which
 * field (`tools.builtin[0].parameters`; empty for the document itself) and what is wrong.
 */
export interface ConfigError {
  file: string;
  line: number;
  column: number;
  path: string;
  message: string;
  kind: "io" | "yaml" | "schema";
}

/** Alias expansions allowed while converting a document: plenty for hand-written YAML, bounded for hostile input. */
const MAX_ALIAS_COUNT = 100;

/** Either the whole parsed config or every error found: a config is never half-loaded. */
export type ConfigResult<T> = { ok: true; config: T } | { ok: false; errors: ConfigError[] };

/** `file:line:column: path: message`, the form editors and terminals link to. */
export function formatConfigError(error: ConfigError): string {
  const where = error.line > 0 ? `${error.file}:${error.line}:${error.column}` : error.file;
  return error.path ? `${where}: ${error.path}: ${error.message}` : `${where}: ${error.message}`;
}

export function formatConfigErrors(errors: readonly ConfigError[]): string {
  return errors.map(formatConfigError).join("\n");
}

/** `["tools", "builtin", 0, "parameters"]` -> `tools.builtin[0].parameters`. */
export function formatFieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/**
 * How a config file is checked: once per process (per session in a server), so without zod's
 * compiled fast path, which costs more to build on a big schema's first parse (some 4 ms for an
 * agent's config, on the way to the first model request) than it saves on that one parse. A
 * section a config leaves out is filled by parsing `{}` in the same parse (`.prefault({})`).
 */
export const PARSED_ONCE = { jitless: true } as const;

/**
 * Parses YAML `text` and validates it with `schema`. Invalid YAML reports yaml's own line and
 * column; each schema violation is mapped back to the node it concerns (the key, for unknown
 * keys; the enclosing map, for missing ones). An empty document counts as `{}` so that an empty
 * file means "all defaults".
 */
export function parseYamlConfig<S extends z.ZodType>(
  text: string,
  file: string,
  schema: S,
): ConfigResult<z.output<S>> {
  const converted = convertYaml(text, file);
  return converted.ok ? checkConverted(converted, file, schema) : converted;
}

/** A YAML text converted to a value, with what maps a schema issue back to its line. */
interface ConvertedYaml {
  ok: true;
  data: unknown;
  document: Document;
  lineCounter: LineCounter;
}

function convertYaml(text: string, file: string): ConvertedYaml | { ok: false; errors: ConfigError[] } {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) {
    return {
      ok: false,
      errors: document.errors.map((error) => ({
        file,
        line: error.linePos?.[0].line ?? 0,
        column: error.linePos?.[0].col ?? 0,
        path: "",
        message: `invalid YAML: ${firstLine(error.message)}`,
        kind: "yaml",
      })),
    };
  }
  try {
    const data = document.contents === null ? {} : document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    return { ok: true, data, document, lineCounter };
  } catch (error) {
    // Raised for alias expansion beyond MAX_ALIAS_COUNT (a "billion laughs" document).
    const message = errorMessage(error);
    return {
      ok: false,
      errors: [{ file, line: 1, column: 1, path: "", message: `invalid YAML: ${message}`, kind: "yaml" }],
    };
  }
}

function checkConverted<S extends z.ZodType>(
  converted: ConvertedYaml,
  file: string,
  schema: S,
): ConfigResult<z.output<S>> {
  const { data, document, lineCounter } = converted;
  const parsed = schema.safeParse(data, PARSED_ONCE);
  if (parsed.success) return { ok: true, config: parsed.data };
  const errors = parsed.error.issues.flatMap((issue) =>
    locateIssue(issue, document, lineCounter, data, file),
  );
  errors.sort((a, b) => a.line - b.line || a.column - b.column);
  return { ok: false, errors };
}

/**
 * Reads and parses a config file; an unreadable file is one `io` error. What its text converts to is
 * remembered beside it (yaml-memo.ts), so the next load of the same text skips the YAML parse, and,
 * when this code checked it before (`rememberCheckedConfigs`), the schema too. Otherwise the schema
 * checks the value, and an invalid config is reported from the YAML itself.
 */
export async function loadYamlConfig<S extends z.ZodType>(
  file: string,
  schema: () => S,
): Promise<ConfigResult<z.output<S>>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    return { ok: false, errors: [ioError(file, error)] };
  }
  const memo = await readYamlMemo(file, text);
  if (memo?.checked !== undefined) return { ok: true, config: memo.checked.config as z.output<S> };
  if (memo !== undefined) {
    const parsed = schema().safeParse(memo.value, PARSED_ONCE);
    if (parsed.success) {
      await rememberCheckedConfig(file, text, memo.value, parsed.data);
      return { ok: true, config: parsed.data };
    }
  }
  const converted = convertYaml(text, file);
  if (!converted.ok) return converted;
  const result = checkConverted(converted, file, schema());
  // The memo is the YAML's value, whether or not it passes; the checked config only when it does.
  // A memo of this text was already there only if its value failed the schema above, as it does here.
  if (memo === undefined)
    await writeYamlMemo(file, text, converted.data, result.ok ? result.config : undefined);
  return result;
}

export function ioError(file: string, error: unknown): ConfigError {
  const code = (error as NodeJS.ErrnoException).code;
  const message = code === "ENOENT" ? "file not found" : `cannot read the file: ${errorMessage(error)}`;
  return { file, line: 0, column: 0, path: "", message, kind: "io" };
}

function firstLine(message: string): string {
  return message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
}

function locateIssue(
  issue: z.core.$ZodIssue,
  document: Document,
  lineCounter: LineCounter,
  data: unknown,
  file: string,
): ConfigError[] {
  const path = issue.path;
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => {
      const offset = keyOffset(document, path, key) ?? nodeOffset(document, path);
      return {
        file,
        ...position(lineCounter, offset),
        path: formatFieldPath([...path, key]),
        message: `unknown field "${key}"`,
        kind: "schema" as const,
      };
    });
  }
  const missing = path.length > 0 && valueAt(data, path) === undefined;
  let message = issue.message;
  if (missing) message = `missing required field "${String(path[path.length - 1])}"`;
  else if (issue.code === "invalid_type") message = `${issue.message.replace(/^Invalid input: /, "")}`;
  return [
    {
      file,
      ...position(lineCounter, nodeOffset(document, path)),
      path: formatFieldPath(path),
      message,
      kind: "schema",
    },
  ];
}

function position(lineCounter: LineCounter, offset: number | undefined): { line: number; column: number } {
  if (offset === undefined) return { line: 1, column: 1 };
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

/** Start offset of the deepest existing node on `path` (a missing field points at its parent map). */
function nodeOffset(document: Document, path: readonly PropertyKey[]): number | undefined {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = depth === 0 ? document.contents : document.getIn(path.slice(0, depth), true);
    if (isNode(node) && node.range) return node.range[0];
  }
  return undefined;
}

function keyOffset(document: Document, path: readonly PropertyKey[], key: string): number | undefined {
  const map = path.length === 0 ? document.contents : document.getIn(path, true);
  if (!isMap(map)) return undefined;
  for (const item of map.items) {
    if (isPair(item) && isScalar(item.key) && String(item.key.value) === key) return item.key.range?.[0];
  }
  return undefined;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let current = data;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
