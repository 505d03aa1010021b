import type { Stats } from "node:fs";
import { lstat, stat } from "node:fs/promises";
import { fsErrorCode } from "./file-tool-support.js";

// Questions to the file system about a path where "nothing there" is an answer, not a failure.

/** What is at `path` itself (a symlink is not followed), or undefined when nothing is; other errors throw. */
export async function lstatIfExists(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    if (fsErrorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}

/** Whether `path` is a directory one can reach (following symlinks); false for anything that fails. */
export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
