import { readlinkSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { modelVisiblePath } from "@penguin/state";

// Where the file tools of a sandboxed session may go: "File tools resolve paths the same way
// inside and outside the sandbox (realpath inside the workspace; a symlink out of it is refused
// in `sandbox`)."

/** A path check a tool makes before it touches the path: undefined when allowed, else why not. */
export interface PathConfinement {
  refusal(absolutePath: string): string | undefined;
}

/**
 * Paths whose real location (symlinks resolved; for a path not yet there, its nearest existing
 * folder's) lies inside the workspace, or inside the session's scratchpad (the archived outputs
 * of truncated tool calls, which the model reads back).
 */
export class WorkspaceConfinement implements PathConfinement {
  private readonly roots: string[];

  constructor(
    private readonly workspaceDir: string,
    scratchpadDir: string,
  ) {
    this.roots = [realOrSelf(workspaceDir), realOrSelf(scratchpadDir)];
  }

  refusal(absolutePath: string): string | undefined {
    const real = realLocation(resolve(absolutePath));
    if (this.roots.some((root) => isInside(root, real))) return undefined;
    const shown = modelVisiblePath(absolutePath);
    const where = real === resolve(absolutePath) ? "is" : `leads (through a symlink) to ${real}, which is`;
    return `Refused: ${shown} ${where} outside the workspace ${modelVisiblePath(this.workspaceDir)}. This session runs in a sandbox: its file tools reach only files inside the workspace.`;
  }
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function realOrSelf(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}

/**
 * The real location of `path`: its realpath when it exists; else its nearest existing ancestor's
 * realpath with the missing part appended (a file about to be written in a linked folder). A
 * dangling symlink counts as where it points.
 */
function realLocation(path: string, depth = 0): string {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      return resolve(realpathSync.native(current), ...missing);
    } catch {
      // A link loop (or a very long chain) counts as where the first link points.
      const target = danglingTarget(current);
      if (target !== undefined && depth < MAX_LINK_HOPS)
        return realLocation(resolve(target, ...missing), depth + 1);
      if (target !== undefined) return resolve(target, ...missing);
      const parent = dirname(current);
      if (parent === current) return path;
      missing.unshift(current.slice(parent.length).replace(/^[/\\]/, ""));
      current = parent;
    }
  }
}

/** Like the kernel's own limit on symlinks followed while resolving one path (40 on Linux). */
const MAX_LINK_HOPS = 40;

function danglingTarget(path: string): string | undefined {
  try {
    return resolve(dirname(path), readlinkSync(path));
  } catch {
    return undefined;
  }
}
