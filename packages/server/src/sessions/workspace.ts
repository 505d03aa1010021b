import { realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, relative, sep } from "node:path";

/**
 * The folders a client may pick a session workspace from when the operator names none: the
 * home folder of the user the server runs as.
 */
export function defaultWorkspaceRoots(): string[] {
  return [homedir()];
}

export type WorkspaceCheck = { ok: true; path: string } | { ok: false; message: string };

function isInside(root: string, path: string): boolean {
  if (path === root) return true;
  const rel = relative(root, path);
  return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel);
}

/**
 * A workspace path from a client is never trusted as given: it must be absolute, exist, be a
 * folder, and — after every symbolic link is resolved, in the path and in the roots — lie inside
 * one of `roots`. Returns the resolved path the session will use.
 */
export async function checkWorkspace(path: string, roots: readonly string[]): Promise<WorkspaceCheck> {
  if (!isAbsolute(path)) return { ok: false, message: "the workspace must be an absolute path" };
  if (path.includes("\0")) return { ok: false, message: "the workspace path contains a NUL byte" };
  let resolved: string;
  try {
    resolved = await realpath(path);
  } catch {
    return { ok: false, message: `workspace ${path} does not exist` };
  }
  if (!(await stat(resolved)).isDirectory())
    return { ok: false, message: `workspace ${path} is not a folder` };
  for (const root of roots) {
    let realRoot: string;
    try {
      realRoot = await realpath(root);
    } catch {
      continue;
    }
    if (isInside(realRoot, resolved)) return { ok: true, path: resolved };
  }
  return {
    ok: false,
    message: `workspace ${path} is outside the folders this server allows (its workspaceRoots option)`,
  };
}
