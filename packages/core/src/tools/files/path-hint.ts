import type { Stats } from "node:fs";
import { lstat, opendir } from "node:fs/promises";
import { basename, dirname, extname, join } from "node:path";
import {
  PATH_HINT_MAX_COMPARED_CHARS,
  PATH_HINT_MAX_DIR_ENTRIES,
  PATH_HINT_MAX_SUGGESTIONS,
} from "../../environment/limits.js";
import { describeFsError, fsErrorCode, shownPath } from "./file-tool-support.js";
import { isDirectory } from "./fs-probes.js";

// A missing path is usually a typo, a wrong extension or a wrong folder. The hint names similar
// entries of the folder, or the nearest folder that does exist, so the model's next call can be
// right without a round of `ls`.

function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      rowMin = Math.min(rowMin, current[j]);
    }
    if (rowMin > cap) return cap + 1;
    previous = current;
  }
  return previous[b.length];
}

function stem(name: string): string {
  const ext = extname(name);
  return ext ? name.slice(0, -ext.length) : name;
}

/** A score for how likely `candidate` is what was meant by `wanted` (lower is closer), or undefined. */
function similarity(wanted: string, candidate: string): number | undefined {
  const a = wanted.toLowerCase();
  const b = candidate.toLowerCase();
  if (a === b) return 0;
  if (stem(a) === stem(b) && stem(a) !== "") return 1;
  if (a.length > PATH_HINT_MAX_COMPARED_CHARS || b.length > PATH_HINT_MAX_COMPARED_CHARS) {
    return b.startsWith(a) || a.startsWith(b) ? 3 : undefined;
  }
  const cap = Math.max(2, Math.floor(a.length / 3));
  const distance = editDistance(a, b, cap);
  if (distance <= cap) return 1 + distance;
  if (b.startsWith(stem(a)) && stem(a).length >= 3) return 2 + cap;
  return undefined;
}

async function similarEntries(dir: string, wanted: string): Promise<string[]> {
  const scored: { name: string; score: number }[] = [];
  let seen = 0;
  try {
    const handle = await opendir(dir);
    for await (const entry of handle) {
      seen += 1;
      if (seen > PATH_HINT_MAX_DIR_ENTRIES) break;
      const score = similarity(wanted, entry.name);
      if (score !== undefined) scored.push({ name: entry.name, score });
    }
  } catch {
    return [];
  }
  scored.sort((x, y) => x.score - y.score || x.name.localeCompare(y.name));
  return scored.slice(0, PATH_HINT_MAX_SUGGESTIONS).map((entry) => entry.name);
}

/**
 * One sentence (or two) about a path that does not exist: similar names in its folder, or the
 * nearest folder that exists.
 */
export async function missingPathHint(path: string): Promise<string> {
  const dir = dirname(path);
  if (await isDirectory(dir)) {
    const similar = await similarEntries(dir, basename(path));
    if (similar.length === 0) return `No similar name in ${shownPath(dir)}.`;
    return `Did you mean ${similar.map((name) => shownPath(join(dir, name))).join(" or ")}?`;
  }
  let ancestor = dirname(dir);
  while (ancestor !== dirname(ancestor) && !(await isDirectory(ancestor))) ancestor = dirname(ancestor);
  return `The folder ${shownPath(dir)} does not exist either; the nearest existing folder is ${shownPath(ancestor)}.`;
}

/** What a tool tells the model about a path that does not exist: where it looked, and a hint. */
export async function notFoundMessage(path: string): Promise<string> {
  return `Not found: ${shownPath(path)}. ${await missingPathHint(path)}`;
}

/**
 * What is at a path a tool works on (by `probe`: lstat, or stat to follow a symlink), or what to
 * tell the model: not found (with a hint), or why it could not `action` the path.
 */
export async function existingPath(
  path: string,
  action: string,
  probe: (path: string) => Promise<Stats> = lstat,
): Promise<{ ok: true; info: Stats } | { ok: false; message: string }> {
  try {
    return { ok: true, info: await probe(path) };
  } catch (error) {
    if (fsErrorCode(error) === "ENOENT") return { ok: false, message: await notFoundMessage(path) };
    return { ok: false, message: describeFsError(action, path, error) };
  }
}
