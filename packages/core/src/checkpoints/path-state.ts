import { createHash } from "node:crypto";
import { lstat, readdir, readFile, readlink, realpath } from "node:fs/promises";
import { join } from "node:path";
import type { PathState } from "@penguin/protocol";
import { fsErrorCode } from "../tools/files/file-tool-support.js";
import { sha256File } from "../tools/files/hashes.js";
import type { BlobStore } from "./store.js";

// What is at a path, as a checkpoint records it: a file's content goes to the store (when it
// fits), a directory is recorded with its mode (and, for an after-state, a hash of everything
// below it, to tell whether anyone changed the tree since).

/** The state at `path` and, for a directory whose before-state is taken, every path below it. */
export interface CapturedPath {
  path: string;
  state: PathState;
}

const permissionBits = (mode: number) => mode & 0o7777;

/** The state at `path`, its content stored; a directory's descendants too when `recursive`. */
export async function capturePath(
  path: string,
  store: BlobStore,
  recursive: boolean,
): Promise<CapturedPath[]> {
  const info = await lstatOrUndefined(path);
  if (!info) return [{ path, state: { kind: "absent" } }];
  if (info.isSymbolicLink()) return [{ path, state: { kind: "symlink", target: await readlink(path) } }];
  if (isSpecial(info)) return [{ path, state: specialState(info.mode) }];
  if (info.isDirectory()) {
    const captured: CapturedPath[] = [
      { path, state: { kind: "directory", mode: permissionBits(info.mode) } },
    ];
    if (!recursive) return captured;
    for (const name of (await readdir(path)).sort())
      captured.push(...(await capturePath(join(path, name), store, true)));
    return captured;
  }
  return [{ path, state: await fileState(path, info.size, permissionBits(info.mode), store) }];
}

/**
 * An after-state: as `capturePath`, with (when `withTree`: for a directory the change set
 * created, which a revert removes whole) a directory's tree hash instead of its descendants.
 */
export async function afterState(path: string, store: BlobStore, withTree: boolean): Promise<PathState> {
  const [captured] = await capturePath(path, store, false);
  const state = captured?.state ?? { kind: "absent" };
  if (state.kind !== "directory" || !withTree) return state;
  return { ...state, tree_sha256: await treeHash(path) };
}

/** The state at `path` without storing anything (a revert's check of what is there now). */
export async function currentState(path: string, withTree = false): Promise<PathState> {
  const info = await lstatOrUndefined(path);
  if (!info) return { kind: "absent" };
  if (info.isSymbolicLink()) return { kind: "symlink", target: await readlink(path) };
  if (info.isDirectory()) {
    const state: PathState = { kind: "directory", mode: permissionBits(info.mode) };
    return withTree ? { ...state, tree_sha256: await treeHash(path) } : state;
  }
  if (isSpecial(info)) return specialState(info.mode);
  const sha256 = (await sha256File(path)) ?? "";
  return { kind: "file", sha256, mode: permissionBits(info.mode), size: info.size, stored: false };
}

/** Whether two states are the same content (a file's mode is not compared: content is what a conflict is about). */
export function sameContent(a: PathState, b: PathState): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "file" && b.kind === "file") return a.sha256 === b.sha256;
  if (a.kind === "symlink" && b.kind === "symlink") return a.target === b.target;
  if (a.kind === "directory" && b.kind === "directory")
    return a.tree_sha256 === undefined || b.tree_sha256 === undefined || a.tree_sha256 === b.tree_sha256;
  return true;
}

/** The hash a state is reported with in a conflict: a file's or tree's sha256, null for nothing. */
export function stateHash(state: PathState): string | null {
  if (state.kind === "file") return state.sha256;
  if (state.kind === "directory") return state.tree_sha256 ?? "directory";
  if (state.kind === "symlink") return `symlink:${state.target}`;
  return null;
}

async function fileState(path: string, size: number, mode: number, store: BlobStore): Promise<PathState> {
  if (!store.fits(size)) {
    // Too large to keep: hashed (so a later change is still seen), never stored.
    return { kind: "file", sha256: (await sha256File(path)) ?? "", mode, size, stored: false };
  }
  const bytes = await readFile(path);
  const { sha256, stored } = await store.put(bytes);
  return { kind: "file", sha256, mode, size: bytes.length, stored };
}

/** sha256 of the sorted listing of everything below `dir`: relative path, kind, mode, content hash. */
async function treeHash(dir: string): Promise<string> {
  const hash = createHash("sha256");
  const walk = async (path: string, relative: string): Promise<void> => {
    for (const name of (await readdir(path)).sort()) {
      const child = join(path, name);
      const rel = relative === "" ? name : `${relative}/${name}`;
      const info = await lstat(child);
      const mode = permissionBits(info.mode).toString(8);
      if (info.isSymbolicLink()) hash.update(`${rel}\0l\0${await readlink(child)}\n`);
      else if (info.isDirectory()) {
        hash.update(`${rel}\0d\0${mode}\n`);
        await walk(child, rel);
      } else if (isSpecial(info)) hash.update(`${rel}\0s\0${mode}\n`);
      else hash.update(`${rel}\0f\0${mode}\0${await sha256File(child)}\n`);
    }
  };
  await walk(dir, "");
  return hash.digest("hex");
}

const EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/** A pipe, socket or device: never read (a read may wait forever), so never restorable. */
const isSpecial = (info: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }) =>
  !info.isFile() && !info.isDirectory() && !info.isSymbolicLink();

function specialState(mode: number): PathState {
  return { kind: "file", sha256: EMPTY_SHA256, mode: permissionBits(mode), size: 0, stored: false };
}

/** The file a symlink at `path` points to (the one a write through it changes), when it is one. */
export async function linkTarget(path: string): Promise<string | undefined> {
  const info = await lstatOrUndefined(path);
  if (!info?.isSymbolicLink()) return undefined;
  try {
    return await realpath(path);
  } catch {
    return undefined;
  }
}

/** Whether anything (a link included) is at `path`. */
export async function pathExists(path: string): Promise<boolean> {
  return (await lstatOrUndefined(path)) !== undefined;
}

async function lstatOrUndefined(path: string) {
  try {
    return await lstat(path);
  } catch (error) {
    const code = fsErrorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}
