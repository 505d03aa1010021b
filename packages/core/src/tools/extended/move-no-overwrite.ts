import { constants } from "node:fs";
import { cp, link, lstat, mkdir, rename, rm, rmdir, unlink } from "node:fs/promises";
import { fsErrorCode } from "../files/file-tool-support.js";

// "It never overwrites": a destination that appears after move_path looked (another process, a
// tool of another session) must not be replaced either. rename(2) silently replaces a file, and an
// empty directory, so every move here first claims the destination with a call that fails with
// EEXIST, atomically, when the name is taken: link(2) for a file or symlink, mkdir(2) for a
// directory.

/**
 * How a move ended. `exists`: the destination was there already. `appeared`: a directory move had
 * reserved the destination, and something was written into the reservation before the directory
 * could be renamed onto it.
 */
export type MoveOutcome = { ok: true } | { ok: false; reason: "exists" | "appeared" };

const MOVED: MoveOutcome = { ok: true };
const EXISTS: MoveOutcome = { ok: false, reason: "exists" };
const APPEARED: MoveOutcome = { ok: false, reason: "appeared" };

/** How link(2) says the file system has no hard links (FAT, some network and FUSE file systems). */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP"]);

/** How rename(2) of a directory says the reserved, empty destination is no longer empty. */
const RESERVATION_FILLED = new Set(["EEXIST", "ENOTEMPTY"]);

/** What fs.cp says when the destination, or a file inside it, exists. */
const COPY_TARGET_EXISTS = new Set(["EEXIST", "ERR_FS_CP_EEXIST"]);

export interface MoveOptions {
  /**
   * Runs once a directory move has reserved its destination, before the rename: a seam for tests
   * that write into the reservation the way another process could.
   */
  onReserved?: () => Promise<void>;
}

/**
 * Moves `from` (a file, symlink or directory, as `isDirectory` says) to `to`, whose parent
 * exists, unless `to` exists. Other failures are thrown as the file system's errors, with the
 * source left in place.
 */
export async function moveWithoutOverwrite(
  from: string,
  to: string,
  isDirectory: boolean,
  options: MoveOptions = {},
): Promise<MoveOutcome> {
  return isDirectory ? moveDirectory(from, to, options) : moveEntry(from, to);
}

/** A file or a symlink: a second name that cannot replace anything, then the old name goes. */
async function moveEntry(from: string, to: string): Promise<MoveOutcome> {
  try {
    // link(2) does not follow a symlink on Linux: the new name is the link itself.
    await link(from, to);
  } catch (error) {
    const code = fsErrorCode(error);
    if (code === "EEXIST") return EXISTS;
    if (code === "EXDEV") return copyAcrossDevices(from, to, EXISTS);
    // No hard links on this file system: only check-then-rename is left, which a file created
    // between the check and the rename can still lose to.
    if (code !== undefined && NO_HARD_LINKS.has(code)) return checkThenRename(from, to);
    throw error;
  }
  try {
    await unlink(from);
  } catch (error) {
    // The old name could not go (a permission on its folder): drop the new one, nothing moved.
    await unlink(to).catch(() => {});
    throw error;
  }
  return MOVED;
}

/**
 * A directory: reserve the destination with mkdir, then rename onto that empty directory (POSIX
 * lets a directory replace an empty one; a non-empty one makes the rename fail).
 */
async function moveDirectory(from: string, to: string, options: MoveOptions): Promise<MoveOutcome> {
  try {
    await mkdir(to);
  } catch (error) {
    if (fsErrorCode(error) === "EEXIST") return EXISTS;
    throw error;
  }
  try {
    await options.onReserved?.();
    await rename(from, to);
    return MOVED;
  } catch (error) {
    const code = fsErrorCode(error);
    if (code === "EXDEV") return copyAcrossDevices(from, to, APPEARED);
    // rmdir removes the reservation only while it is still empty: what someone else wrote into
    // it stays.
    await rmdir(to).catch(() => {});
    if (code !== undefined && RESERVATION_FILLED.has(code)) return APPEARED;
    throw error;
  }
}

/**
 * Another file system: copy (symlinks as links, each file with O_EXCL so that nothing is
 * replaced), then remove the source. A directory is copied into its reservation; `taken` is the
 * outcome when something in the way exists.
 */
async function copyAcrossDevices(from: string, to: string, taken: MoveOutcome): Promise<MoveOutcome> {
  try {
    await cp(from, to, {
      recursive: true,
      errorOnExist: true,
      force: false,
      mode: constants.COPYFILE_EXCL,
      verbatimSymlinks: true,
      preserveTimestamps: true,
    });
  } catch (error) {
    const code = fsErrorCode(error);
    if (code !== undefined && COPY_TARGET_EXISTS.has(code)) return taken;
    throw error;
  }
  await rm(from, { recursive: true });
  return MOVED;
}

/** The fallback where hard links are not supported: not atomic, see moveEntry. */
async function checkThenRename(from: string, to: string): Promise<MoveOutcome> {
  try {
    await lstat(to);
    return EXISTS;
  } catch (error) {
    if (fsErrorCode(error) !== "ENOENT") throw error;
  }
  try {
    await rename(from, to);
  } catch (error) {
    if (fsErrorCode(error) === "EXDEV") return copyAcrossDevices(from, to, EXISTS);
    throw error;
  }
  return MOVED;
}
