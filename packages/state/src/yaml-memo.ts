import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { writePrivateFile } from "./private-files.js";

/**
 * The value a config file's YAML converts to, remembered beside the file so that the next start
 * reads JSON instead of parsing YAML; and, in a program that names the code checking configs
 * (`rememberCheckedConfigs`), the config as that code checked it, so that the next start of the
 * same code neither parses the YAML nor builds the schema.
 *
 * Parsing an agent's `system_config.yaml` (8.6 KB, every tool written out) took some 30 ms of
 * each `penguin run` before its first model request, and its garbage as much again: yaml's parser
 * runs cold in every new process. `JSON.parse` of the same value takes a fraction of a millisecond.
 * Building the schemas that check it took about 20 ms more. The memo never decides what a config
 * means: a change to the file's text (its SHA-256) makes all of it stale, and a checked config is
 * used only by the very code that checked it; any other code checks the remembered value again.
 */

/**
 * Bump when the conversion from YAML text to a value changes (yaml's options in config-errors.ts,
 * or a yaml major version): every memo written before is then ignored and written again.
 */
export const YAML_MEMO_FORMAT = 1;

interface YamlMemo {
  format: number;
  /** SHA-256 of the YAML text the value came from. */
  sha256: string;
  value: unknown;
  /** The value as the schema returned it, and the code that checked it. */
  checked?: { code: string; config: unknown };
}

/** What a memo holds for a text: its value, and the checked config when this code checked it. */
export interface RememberedYaml {
  value: unknown;
  checked?: { config: unknown };
}

/** The code whose checked configs are remembered; undefined: none are. */
let checkingCode: string | undefined;

/**
 * Lets config loads remember the configs they checked, under `code`, and use them when `code`
 * loads the same text again. `code` must change whenever anything that checks a config changes
 * (a schema, a refinement, a default, zod itself): the CLI passes the SHA-256 of its one-file
 * build, which holds all of them. A program that cannot name its code so leaves this unset, and
 * every load checks its config. Undefined turns it off again.
 */
export function rememberCheckedConfigs(code: string | undefined): void {
  checkingCode = code;
}

/** `agents/default/system_config.yaml` -> `agents/default/.system_config.yaml.parsed.json`. */
export function yamlMemoFile(file: string): string {
  return join(dirname(file), `.${basename(file)}.parsed.json`);
}

function textHash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** What is remembered for exactly `text`, or undefined when nothing is. */
export async function readYamlMemo(file: string, text: string): Promise<RememberedYaml | undefined> {
  let memo: Partial<YamlMemo>;
  try {
    memo = JSON.parse(await readFile(yamlMemoFile(file), "utf8")) as Partial<YamlMemo>;
  } catch {
    // Missing, unreadable or torn: the caller parses the YAML.
    return undefined;
  }
  if (memo === null || typeof memo !== "object") return undefined;
  if (memo.format !== YAML_MEMO_FORMAT || memo.sha256 !== textHash(text) || !("value" in memo))
    return undefined;
  const checked = memo.checked;
  const ours = checkingCode !== undefined && checked?.code === checkingCode && "config" in checked;
  return ours ? { value: memo.value, checked: { config: checked.config } } : { value: memo.value };
}

/** `value` as JSON, or undefined when JSON cannot carry it exactly (YAML's `.inf` and `.nan` come back as null). */
function exactJson(value: unknown): string | undefined {
  const json = JSON.stringify(value);
  return json !== undefined && isDeepStrictEqual(JSON.parse(json), value) ? json : undefined;
}

/**
 * Remembers `value` as what `text` converts to, and `checked` as the config the schema made of it
 * when a checking code is named (`rememberCheckedConfigs`). Skipped when JSON cannot carry the
 * value exactly; a checked config JSON cannot carry is left out. The memo holds whatever the config
 * holds, keys included, so it is a private file like the configs themselves; not flushed to disk,
 * as a lost or torn memo only costs the next start its parse. A memo that cannot be written is no
 * error.
 */
export async function writeYamlMemo(
  file: string,
  text: string,
  value: unknown,
  checked?: unknown,
): Promise<void> {
  const json = exactJson(value);
  if (json === undefined) return;
  const checkedJson = checkingCode === undefined || checked === undefined ? undefined : exactJson(checked);
  const checkedPart =
    checkedJson === undefined
      ? ""
      : `,"checked":{"code":${JSON.stringify(checkingCode)},"config":${checkedJson}}`;
  const memo = `{"format":${YAML_MEMO_FORMAT},"sha256":"${textHash(text)}","value":${json}${checkedPart}}\n`;
  await writePrivateFile(yamlMemoFile(file), memo, { durable: false }).catch(() => {});
}

/**
 * Adds `config`, the schema's result for `value`, to the memo of `text`, when a checking code is
 * named (`rememberCheckedConfigs`); without one there is nothing to add and the memo is left as it is.
 */
export async function rememberCheckedConfig(
  file: string,
  text: string,
  value: unknown,
  config: unknown,
): Promise<void> {
  if (checkingCode !== undefined) await writeYamlMemo(file, text, value, config);
}
