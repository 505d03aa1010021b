import { realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/**
 * The folders a client may pick a session workspace from when the operator names none: the
 * home folder of the user the server runs as.
 */
export function defaultWorkspaceRoots(): string[] {
  return [homedir()];
}

export type WorkspaceCheck = { ok: true; path: string } | { ok: false; message: string };

/**
 * Folders no workspace may be, lie in or contain, registered per roots list (see
 * `confineWorkspaceRoots`), so every holder of the list applies them without passing them on.
 */
const forbiddenByRoots = new WeakMap<readonly string[], readonly string[]>();

/**
 * A copy of `roots` that carries `forbidden` folders (the server's data root): `checkWorkspace`
 * with this list refuses a workspace that is one of them, lies inside one or contains one.
 */
export function confineWorkspaceRoots(
  roots: readonly string[],
  forbidden: readonly string[],
): readonly string[] {
  const confined = Object.freeze([...roots]);
  forbiddenByRoots.set(confined, Object.freeze([...forbidden]));
  return confined;
}

/** Whether `path` is `root` or lies inside it (both absolute and normalised). */
export function isInside(root: string, path: string): boolean {
  if (path === root) return true;
  const rel = relative(root, path);
  return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel);
}

/** `path` resolved through every symbolic link; undefined when it does not exist. */
async function real(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch {
    return undefined;
  }
}

/**
 * Where `path` would be once its missing tail is created: its nearest existing ancestor resolved
 * through symbolic links, with the missing part appended as written.
 */
async function realTarget(path: string): Promise<string> {
  let existing = path;
  for (;;) {
    const resolved = await real(existing);
    if (resolved !== undefined) return join(resolved, relative(existing, path));
    const parent = dirname(existing);
    if (parent === existing) return path;
    existing = parent;
  }
}

/** The roots that exist, each resolved through symbolic links (the form listings use). */
export async function existingRoots(roots: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const root of roots) {
    const resolved = await real(root);
    if (resolved !== undefined && !found.includes(resolved)) found.push(resolved);
  }
  return found;
}

/** Each folder as given (made absolute) and, when it exists, resolved through symbolic links. */
async function bothForms(folders: readonly string[]): Promise<string[]> {
  const forms = new Set<string>();
  for (const folder of folders) {
    forms.add(resolve(folder));
    const resolved = await real(folder);
    if (resolved !== undefined) forms.add(resolved);
  }
  return [...forms];
}

/** Why `path` may not be a workspace because of a forbidden folder, or undefined when it may. */
function forbiddenReason(path: string, shown: string, forbidden: readonly string[]): string | undefined {
  for (const folder of forbidden) {
    if (isInside(folder, path)) {
      return `workspace ${shown} is inside the server's data folder (its database, traces and keys); pick a project folder`;
    }
    if (isInside(path, folder)) {
      return `workspace ${shown} contains the server's data folder (its database, traces and keys); pick a project folder`;
    }
  }
  return undefined;
}

/**
 * A workspace path from a client is never trusted as given. It must be absolute and lie inside
 * one of `roots`, and must neither be, lie in nor contain a forbidden folder (the server's data
 * root, see `confineWorkspaceRoots`) — checked first on the path as written, then again after
 * every symbolic link is resolved. Only then is it checked to exist and be a folder, so a path
 * outside the roots is refused the same way whether it exists or not, and the answer never tells
 * a client what lies outside. Returns the resolved path the session will use.
 */
export async function checkWorkspace(
  path: string,
  roots: readonly string[],
  forbidden: readonly string[] = forbiddenByRoots.get(roots) ?? [],
): Promise<WorkspaceCheck> {
  if (!isAbsolute(path)) return { ok: false, message: "the workspace must be an absolute path" };
  if (path.includes("\0")) return { ok: false, message: "the workspace path contains a NUL byte" };
  const outside: WorkspaceCheck = {
    ok: false,
    message: `workspace ${path} is outside the folders this server allows (its workspace roots)`,
  };
  const rootForms = await bothForms(roots);
  const forbiddenForms = await bothForms(forbidden);

  const lexical = resolve(path);
  if (!rootForms.some((root) => isInside(root, lexical))) return outside;
  const lexicalReason = forbiddenReason(lexical, path, forbiddenForms);
  if (lexicalReason) return { ok: false, message: lexicalReason };

  // A missing path is judged by its nearest existing ancestor: a symbolic link inside a root that
  // points outside must not reveal what exists out there.
  const resolved = await real(lexical);
  const judged = resolved ?? (await realTarget(lexical));
  if (!rootForms.some((root) => isInside(root, judged))) return outside;
  const realReason = forbiddenReason(judged, path, forbiddenForms);
  if (realReason) return { ok: false, message: realReason };

  if (resolved === undefined) return { ok: false, message: `workspace ${path} does not exist` };
  if (!(await stat(resolved)).isDirectory())
    return { ok: false, message: `workspace ${path} is not a folder` };
  return { ok: true, path: resolved };
}
