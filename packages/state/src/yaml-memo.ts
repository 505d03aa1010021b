import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { writePrivateFile } from "./private-files.js";

/**
 * The value a config file's YAML converts to, remembered beside the file so that the next start
 * reads JSON instead of parsing YAML.
 *
 * Parsing an agent's `system_config.yaml` (8.6 KB, every tool written out) took some 30 ms of
 * each `penguin run` before its first model request, and its garbage as much again: yaml's parser
 * runs cold in every new process. `JSON.parse` of the same value takes a fraction of a millisecond.
 * The memo never decides what a config means: the schema still checks the remembered value on every
 * load, and any change to the file's text (its SHA-256) makes the memo stale.
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
}

/** `agents/default/system_config.yaml` -> `agents/default/.system_config.yaml.parsed.json`. */
export function yamlMemoFile(file: string): string {
  return join(dirname(file), `.${basename(file)}.parsed.json`);
}

function textHash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The remembered value of `text`, or undefined when there is none for exactly this text. */
export async function readYamlMemo(file: string, text: string): Promise<{ value: unknown } | undefined> {
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
  return { value: memo.value };
}

/**
 * Remembers `value` as what `text` converts to. Skipped when JSON cannot carry the value exactly
 * (YAML's `.inf` and `.nan` would come back as null). The memo holds whatever the config holds, keys
 * included, so it is a private file like the configs themselves; not flushed to disk, as a lost or
 * torn memo only costs the next start its parse. A memo that cannot be written is no error.
 */
export async function writeYamlMemo(file: string, text: string, value: unknown): Promise<void> {
  const json = JSON.stringify(value);
  if (json === undefined || !isDeepStrictEqual(JSON.parse(json), value)) return;
  const memo = `{"format":${YAML_MEMO_FORMAT},"sha256":"${textHash(text)}","value":${json}}\n`;
  await writePrivateFile(yamlMemoFile(file), memo, { durable: false }).catch(() => {});
}
