import { existsSync, readFileSync } from "node:fs";
import type { ModelScript } from "@penguin/protocol";
import { ModelScriptSchema, type ScriptTurnSchema } from "@penguin/protocol/schemas";
import { parseDocument } from "yaml";
import type { z } from "zod";

/** A script as a test writes it: defaults may be left out (the schema fills them in). */
export type ModelScriptInput = z.input<typeof ModelScriptSchema>;
export type ScriptTurnInput = z.input<typeof ScriptTurnSchema>;

/** Raised for a script that cannot be read, parsed or validated; the message names where. */
export class ScriptLoadError extends Error {
  constructor(
    message: string,
    /** The file, or `inline YAML` / `inline script`. */
    readonly source: string,
  ) {
    super(message);
    this.name = "ScriptLoadError";
  }
}

/** Dotted path of a zod issue, e.g. `turns.2.error.status`; `(root)` for the whole document. */
function issuePath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? "(root)" : path.map(String).join(".");
}

/** Validates an already-parsed script (from YAML, JSON or a test's object literal). */
export function parseScript(value: unknown, source = "inline script"): ModelScript {
  const result = ModelScriptSchema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `  ${issuePath(issue.path)}: ${issue.message}`);
  throw new ScriptLoadError(`fake-llm script ${source} is invalid:\n${problems.join("\n")}`, source);
}

function looksLikePath(text: string): boolean {
  return !text.includes("\n") && /\.(ya?ml|json)$/i.test(text.trim());
}

/**
 * Loads a script from a YAML (or JSON) file path, or from YAML text given directly. A string
 * that names no existing file but looks like a path (one line ending in .yaml/.yml/.json) is
 * reported as a missing file rather than parsed as YAML.
 */
export function loadScript(pathOrYamlText: string): ModelScript {
  let source = "inline YAML";
  let text = pathOrYamlText;
  if (!pathOrYamlText.includes("\n") && existsSync(pathOrYamlText)) {
    source = pathOrYamlText;
    text = readFileSync(pathOrYamlText, "utf8");
  } else if (looksLikePath(pathOrYamlText)) {
    throw new ScriptLoadError(`fake-llm script ${pathOrYamlText}: file not found`, pathOrYamlText);
  }
  const document = parseDocument(text, { prettyErrors: true });
  if (document.errors.length > 0) {
    const problems = document.errors.map((error) => `  ${error.message}`);
    throw new ScriptLoadError(`fake-llm script ${source} is not valid YAML:\n${problems.join("\n")}`, source);
  }
  return parseScript(document.toJS(), source);
}
