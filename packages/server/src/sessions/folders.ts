import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { checkWorkspace, existingRoots, isInside } from "./workspace.js";

/** Sub-folders one listing shows at most; a folder with more says it was cut. */
export const MAX_LISTED_FOLDERS = 500;

export interface FolderEntry {
  name: string;
  path: string;
}

export type FolderListing =
  | {
      ok: true;
      /** The folder listed, resolved through symbolic links. */
      path: string;
      /** The workspace root it lies in. */
      root: string;
      /** The folder above, while that is still inside the root; null at the root itself. */
      parent: string | null;
      folders: FolderEntry[];
      truncated: boolean;
    }
  | { ok: false; message: string };

/**
 * The sub-folders of `path` for a folder picker, by name. `path` must pass the same check as a
 * session's workspace (inside the roots, not the data folder, symbolic links resolved), and so
 * must each sub-folder listed: a symbolic link that leads out of the roots, or into the data
 * folder, is left out, as are files. Hidden folders (a leading dot) only when `hidden`.
 */
export async function listFolders(
  path: string,
  roots: readonly string[],
  options: { hidden: boolean },
): Promise<FolderListing> {
  const checked = await checkWorkspace(path, roots);
  if (!checked.ok) return checked;
  const resolved = checked.path;
  const root = (await existingRoots(roots))
    .filter((candidate) => isInside(candidate, resolved))
    .sort((a, b) => b.length - a.length)[0];
  if (root === undefined) return { ok: false, message: `${path} is outside the workspace roots` };

  let entries: Dirent[];
  try {
    entries = await readdir(resolved, { withFileTypes: true });
  } catch (error) {
    return { ok: false, message: `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? "error"}` };
  }
  const candidates = entries
    .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
    .filter((entry) => options.hidden || !entry.name.startsWith("."))
    .map((entry) => entry.name)
    .sort((a, b) => a.localeCompare(b));
  const folders: FolderEntry[] = [];
  let truncated = false;
  for (const name of candidates) {
    const child = join(resolved, name);
    // The same check as the folder itself: a link out of the roots is not a folder one may pick.
    if (!(await checkWorkspace(child, roots)).ok) continue;
    if (folders.length === MAX_LISTED_FOLDERS) {
      truncated = true;
      break;
    }
    folders.push({ name, path: child });
  }
  const parent = resolved === root ? null : dirname(resolved);
  return { ok: true, path: resolved, root, parent, folders, truncated };
}
