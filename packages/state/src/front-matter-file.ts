import type { Dirent } from "node:fs";
import { open, readdir } from "node:fs/promises";
import { errorMessage } from "@penguin/protocol";
import { parse as parseYaml } from "yaml";

// What skills (SKILL.md) and named agents (.agents/agents/<name>.md) are made of: a Markdown file
// with a `---` block of YAML at the top, read with a size cap, whose `description` the system
// prompt lists and whose `allowed-tools` names tools. Each kind words its own messages.

/** A `---` block of YAML at the top of a Markdown file. */
export const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
/** An opening `---` line: the file meant to have front matter, even when it is not closed. */
export const FRONT_MATTER_OPENING = /^\uFEFF?---[ \t]*\r?\n/;

export type FrontMatterParse =
  | { ok: true; fields: Record<string, unknown>; body: string }
  | { ok: false; error: string };

/**
 * The front matter of `text` as a mapping, and the body after it. Each kind of file words the
 * messages of a missing or an unclosed block itself (they name the file as its readers know it).
 */
export function parseFrontMatter(
  text: string,
  wording: { unclosed: string; missing: string },
): FrontMatterParse {
  const match = FRONT_MATTER.exec(text);
  if (!match)
    return { ok: false, error: FRONT_MATTER_OPENING.test(text) ? wording.unclosed : wording.missing };
  let data: unknown;
  try {
    data = parseYaml(match[1] ?? "", { maxAliasCount: 10 });
  } catch (error) {
    // The whole error: the YAML library's message points at the line and column with an excerpt.
    return { ok: false, error: `the front matter is not valid YAML: ${errorMessage(error).trimEnd()}` };
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    return { ok: false, error: "the front matter must be a mapping with name and description" };
  }
  return { ok: true, fields: data as Record<string, unknown>, body: text.slice(match[0].length) };
}

/**
 * `description`, folded to one line: required and at most `maxChars` (it is listed in the system
 * prompt, sent with every request). `listedAs` ends the message of a missing one.
 */
export function descriptionOf(
  value: unknown,
  maxChars: number,
  listedAs: string,
): { ok: true; description: string } | { ok: false; error: string } {
  if (typeof value !== "string" || value.trim() === "") {
    return { ok: false, error: `description is missing: the prompt lists each ${listedAs} by it` };
  }
  if (value.length > maxChars) {
    return { ok: false, error: `description has ${value.length} characters; keep it under ${maxChars}` };
  }
  return { ok: true, description: value.trim().replace(/\s+/g, " ") };
}

/** `allowed-tools` as a list of names: a YAML list, or one string separated by commas or spaces. */
export function allowedToolsOf(
  value: unknown,
): { ok: true; tools?: string[] } | { ok: false; error: string } {
  if (value === undefined || value === null) return { ok: true };
  const names = typeof value === "string" ? value.split(/[\s,]+/) : Array.isArray(value) ? value : undefined;
  if (!names || names.some((name) => typeof name !== "string")) {
    return {
      ok: false,
      error: `allowed-tools must be a list of tool names (or one string of them), got ${JSON.stringify(value)}`,
    };
  }
  const tools = (names as string[]).map((name) => name.trim()).filter((name) => name !== "");
  return { ok: true, tools };
}

/** Reads a regular file as UTF-8, refusing one above `maxBytes` (`what` names it in the message). */
export async function readBoundedFile(
  file: string,
  maxBytes: number,
  what: string,
): Promise<{ ok: true; text: string } | { ok: false; error: string }> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(file, "r");
    const info = await handle.stat();
    if (!info.isFile()) return { ok: false, error: "not a regular file" };
    if (info.size > maxBytes) {
      return { ok: false, error: `it has ${info.size} bytes; ${what} may have at most ${maxBytes}` };
    }
    return { ok: true, text: await handle.readFile("utf8") };
  } catch (error) {
    return { ok: false, error: (error as NodeJS.ErrnoException).code ?? errorMessage(error) };
  } finally {
    await handle?.close();
  }
}

/**
 * The `*.md` entries of `dir` in bytewise name order (named agents and event handlers are one file
 * each); undefined when `dir` cannot be listed.
 */
export async function markdownFiles(dir: string): Promise<string[] | undefined> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  return entries
    .filter((entry) => !entry.isDirectory() && entry.name.endsWith(".md"))
    .map((entry) => entry.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
