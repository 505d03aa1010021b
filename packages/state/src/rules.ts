import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

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
}

/** The rules of `dir` in file-name order; none when the folder is missing. Unreadable files are skipped. */
export async function readRules(dir: string): Promise<RuleFile[]> {
  const folder = join(dir, RULES_DIR);
  let names: string[];
  try {
    names = (await readdir(folder, { withFileTypes: true }))
      .filter((entry) => entry.isFile() && entry.name.endsWith(".md"))
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
  const rules: RuleFile[] = [];
  let budget = RULES_TOTAL_MAX_CHARS;
  for (const name of names) {
    if (budget <= 0) break;
    const file = join(folder, name);
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch {
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
