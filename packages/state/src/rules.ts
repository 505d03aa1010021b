import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { modelVisiblePath } from "./paths.js";

// A directory's rules: `<dir>/.agents/rules/*.md`, instructions that change_directory loads
// together with the directory's AGENTS.md.

export const RULES_DIR = join(".agents", "rules");
/** Rules are instructions read into the context: each file and all of them together are capped. */
export const RULE_FILE_MAX_CHARS = 25_000;
export const RULES_TOTAL_MAX_CHARS = 50_000;

export interface RuleFile {
  /** The file name, e.g. `style.md`. */
  name: string;
  file: string;
  text: string;
  /** The text was cut to a cap; the model can read the file for the rest. */
  truncated: boolean;
  /** Why the file could not be read (its text is then empty); the model is told it exists. */
  unreadable?: string;
}

/**
 * The rules of `dir` in file-name order (a stable order, so a prompt built from them is the same
 * bytes each time); none when the folder is missing. A symlinked rule is followed; a file that
 * cannot be read is listed with the reason and no text.
 */
export async function readRules(dir: string): Promise<RuleFile[]> {
  const folder = join(dir, RULES_DIR);
  let names: string[];
  try {
    names = (await readdir(folder, { withFileTypes: true }))
      .filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith(".md"))
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
  const rules: RuleFile[] = [];
  let budget = RULES_TOTAL_MAX_CHARS;
  for (const name of names) {
    const file = join(folder, name);
    // Past the total cap a rule is still named, with the note that points at its file.
    if (budget <= 0) {
      rules.push({ name, file, text: "", truncated: true });
      continue;
    }
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      rules.push({ name, file, text: "", truncated: false, unreadable: readFailure(error) });
      continue;
    }
    const cap = Math.min(RULE_FILE_MAX_CHARS, budget);
    const truncated = text.length > cap;
    const kept = truncated ? text.slice(0, cap) : text;
    budget -= kept.length;
    rules.push({ name, file, text: kept, truncated });
  }
  return rules;
}

function readFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "it is a broken link";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EISDIR") return "it is a directory";
  return code ?? String(error);
}

/**
 * The rules as the model reads them, wherever they are loaded (the system prompt at session
 * start, change_directory later): a `## <file name>` section each, in the order given, with a
 * note that names the file after a text that was cut or instead of a text that could not be read.
 */
export function formatRules(rules: readonly RuleFile[]): string {
  return rules.map((rule) => `## ${rule.name}\n${ruleBody(rule)}`).join("\n\n");
}

function ruleBody(rule: RuleFile): string {
  const shown = modelVisiblePath(rule.file);
  if (rule.unreadable !== undefined) return `[rule not loaded: ${shown} cannot be read (${rule.unreadable})]`;
  const note = rule.truncated ? `[rule truncated: read ${shown} for the rest]` : "";
  return [rule.text.trimEnd(), note].filter((line) => line !== "").join("\n");
}
