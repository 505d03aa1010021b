import { readFileSync } from "node:fs";
import { errorMessage, type ModelScript, scriptSchemas } from "@penguin/protocol";
import { isNode, LineCounter, parseDocument } from "yaml";

/**
 * Cassettes for the `replay` model: YAML files in the scripted-turn format of
 * `@penguin/protocol` (`ModelScriptSchema`), the same format fake-llm plays over HTTP.
 */

/** One problem of a cassette, located as precisely as the file allows. */
export interface CassetteProblem {
  /** 1-based line and column in the file, when known. */
  line?: number;
  column?: number;
  /** Dotted path of the offending field, e.g. `turns.2.error.status`; absent for YAML syntax errors. */
  path?: string;
  message: string;
}

/** A cassette that cannot be read, parsed or validated. The message lists every problem as `file:line:column: path: message`. */
export class CassetteError extends Error {
  constructor(
    readonly file: string,
    readonly problems: CassetteProblem[],
  ) {
    super(`invalid cassette ${file}:\n${problems.map((p) => `  ${formatProblem(file, p)}`).join("\n")}`);
    this.name = "CassetteError";
  }
}

function formatProblem(file: string, problem: CassetteProblem): string {
  const where = problem.line === undefined ? file : `${file}:${problem.line}:${problem.column ?? 1}`;
  return problem.path === undefined
    ? `${where}: ${problem.message}`
    : `${where}: ${problem.path}: ${problem.message}`;
}

function dottedPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? "(root)" : path.map(String).join(".");
}

/** Parses and validates cassette text; `file` only names it in errors. */
export function parseCassette(text: string, file: string): ModelScript {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  if (document.errors.length > 0) {
    throw new CassetteError(
      file,
      document.errors.map((error) => {
        const { line, col } = lineCounter.linePos(error.pos[0]);
        return { line, column: col, message: error.message.split("\n")[0]! };
      }),
    );
  }
  const result = scriptSchemas().ModelScriptSchema.safeParse(document.toJS());
  if (result.success) return result.data;
  throw new CassetteError(
    file,
    result.error.issues.map((issue) => {
      const position = locate(document, issue.path, lineCounter);
      return { ...position, path: dottedPath(issue.path), message: issue.message };
    }),
  );
}

/**
 * The position of the YAML node at `path`, or of its nearest existing ancestor when the field
 * is missing (a missing `name` is reported where its tool call starts).
 */
function locate(
  document: ReturnType<typeof parseDocument>,
  path: readonly PropertyKey[],
  lineCounter: LineCounter,
): { line?: number; column?: number } {
  const keys = path.filter((key): key is string | number => typeof key !== "symbol");
  for (let length = keys.length; length >= 0; length--) {
    const node = length === 0 ? document.contents : document.getIn(keys.slice(0, length), true);
    if (isNode(node) && node.range) {
      const { line, col } = lineCounter.linePos(node.range[0]);
      return { line, column: col };
    }
  }
  return {};
}

/** Reads and validates a cassette file; throws `CassetteError` naming file, line, column and field. */
export function loadCassette(file: string): ModelScript {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const reason = errorMessage(error);
    throw new CassetteError(file, [{ message: `cannot read the file (${reason})` }]);
  }
  return parseCassette(text, file);
}
