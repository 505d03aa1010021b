import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync } from "node:fs";
import { chmod, link, mkdir, open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** "Files that hold keys are 0600 (folders 0700)." */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/**
 * Creates `dir` and any missing parents with mode 0700. Folders that already exist keep their
 * mode: the user may have chosen it (e.g. a shared data root), and this only decides the mode of
 * what Penguin itself creates.
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  const first = await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first === undefined || process.platform === "win32") return;
  // mkdir applies the umask; set the mode explicitly on every folder this call created.
  let current = dir;
  for (;;) {
    await chmod(current, PRIVATE_DIR_MODE);
    if (current === first) break;
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
}

/** `ensurePrivateDir` for callers that cannot wait (a logger is created synchronously). */
export function ensurePrivateDirSync(dir: string): void {
  const first = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first === undefined || process.platform === "win32") return;
  let current = dir;
  for (;;) {
    chmodSync(current, PRIVATE_DIR_MODE);
    if (current === first) break;
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
}

export interface WritePrivateFileOptions {
  /** When false, fail with an `EEXIST` error instead of replacing an existing file. Default true. */
  overwrite?: boolean;
  /**
   * When false, the bytes are not flushed to disk before the rename: for a file that is only a
   * shortcut (a power cut may leave it empty or missing, never half of an old and a new one as
   * seen by a reader). Default true.
   */
  durable?: boolean;
}

/**
 * Writes `data` to `file` atomically with mode 0600: the bytes go to a temporary file in the
 * same folder (created 0600, flushed to disk), which is then renamed over the target, so a reader
 * sees the old content or the new one, never a partial file, and the key never sits in a file
 * that others can read. With `overwrite: false` the temporary file is hard-linked instead, which
 * fails atomically when the target exists.
 */
export async function writePrivateFile(
  file: string,
  data: string | Uint8Array,
  options: WritePrivateFileOptions = {},
): Promise<void> {
  const dir = dirname(file);
  await ensurePrivateDir(dir);
  const temp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(temp, "wx", PRIVATE_FILE_MODE);
    await handle.writeFile(data);
    if (options.durable !== false) await handle.sync();
    await handle.close();
    handle = undefined;
    if (process.platform !== "win32") await chmod(temp, PRIVATE_FILE_MODE);
    if (options.overwrite === false) {
      await link(temp, file);
      await unlink(temp);
    } else {
      await rename(temp, file);
    }
  } catch (error) {
    await handle?.close().catch(() => {});
    await unlink(temp).catch(() => {});
    throw error;
  }
}
