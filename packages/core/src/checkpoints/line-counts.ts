import type { PathState } from "@penguin/protocol";
import { DIFF_MAX_FILE_BYTES } from "../environment/limits.js";
import { countChanges, formatHunks, lineDiff } from "../tools/files/unified-diff.js";
import type { BlobStore } from "./store.js";

// The lines a change set added and removed in one file (the `diff` package's line diff of the
// stored before and after contents), and its unified diff on request. A binary file, or one larger
// than the diffs the file tools show, counts no lines.

export interface LineCounts {
  added: number;
  removed: number;
  diff?: string;
}

type Content = { text: string } | { binary: true } | { unknown: true };

export async function lineCounts(
  store: BlobStore,
  path: string,
  before: PathState,
  after: PathState,
  withDiff: boolean,
): Promise<LineCounts> {
  const old = await contentOf(store, before);
  const now = await contentOf(store, after);
  if ("binary" in old || "binary" in now) {
    return { added: 0, removed: 0, ...(withDiff ? { diff: `Binary file ${path} changed` } : {}) };
  }
  if ("unknown" in old || "unknown" in now) return { added: 0, removed: 0 };
  const patch = lineDiff(path, old.text, now.text);
  if (!patch) return { added: 0, removed: 0 };
  const { added, removed } = countChanges(patch);
  return { added, removed, ...(withDiff ? { diff: formatHunks(patch) } : {}) };
}

async function contentOf(store: BlobStore, state: PathState): Promise<Content> {
  if (state.kind !== "file") return { text: "" };
  if (!state.stored || state.size > DIFF_MAX_FILE_BYTES) return { unknown: true };
  const bytes = await store.get(state.sha256);
  if (!bytes) return { unknown: true };
  if (bytes.subarray(0, 8000).includes(0)) return { binary: true };
  return { text: bytes.toString("utf8") };
}
