import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync } from "node:fs";

/** "exported/imported files and trace files are created 0600, their folders 0700". */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/**
 * Creates `dir` (and missing parents) as 0700. Folders that already exist keep their mode: the
 * data root may be shared on purpose, and an export target like the home folder is not ours.
 */
export function ensurePrivateDir(dir: string): void {
  const firstCreated = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  // mkdir applies the umask, which can only remove bits, so 0700 stays 0700 or tighter; the
  // explicit chmod covers the folder we asked for even under an unusual umask like 0o277.
  if (firstCreated !== undefined) chmodSync(dir, PRIVATE_DIR_MODE);
}

/** Makes a new directory entry durable (for the fsync mode: a new file must survive power loss). */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Some platforms (Windows) cannot open or fsync a folder; the file data itself is still synced.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
