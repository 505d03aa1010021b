import { accessSync, constants, type Stats, statSync } from "node:fs";
import { dirname, resolve, sep } from "node:path";
import { UsageError } from "../exit-codes.js";

const cannotWrite = (file: string, reason: string) =>
  new UsageError(`cannot write cassette ${file}: ${reason}`);

const errnoOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error);

/**
 * The cassette `--record` names, as an absolute path, once it is known it can be written: the
 * recorder writes a temporary file beside it and renames it over the cassette, creating missing
 * folders, so the nearest existing folder must be writable and nothing on the way may be a
 * file. Checked before the session starts, so a bad path leaves no half-made session behind.
 */
export function writableCassette(file: string): string {
  const absolute = resolve(file);
  const statOf = (path: string): Stats | undefined => {
    try {
      return statSync(path);
    } catch (error) {
      // Not there (or under a file): the walk goes on up to the nearest existing path.
      const code = errnoOf(error);
      if (code === "ENOENT" || code === "ENOTDIR") return undefined;
      throw cannotWrite(file, `${path} cannot be looked at (${code})`);
    }
  };
  if (statOf(absolute)?.isDirectory()) throw cannotWrite(file, "it is a folder");
  let dir = dirname(absolute);
  for (let stat = statOf(dir); !stat; stat = statOf(dir)) dir = dirname(dir);
  if (!statOf(dir)?.isDirectory()) throw cannotWrite(file, `${dir} is not a folder`);
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw cannotWrite(file, `${dir} is not writable (${errnoOf(error)})`);
  }
  return absolute;
}

/**
 * A file system error about the cassette's path while the recording session was set up (a race
 * with the check above, or a file system that refuses what the permissions allow), as the same
 * one-line usage error; undefined for any other error.
 */
export function cassetteWriteError(cassette: string, error: unknown): UsageError | undefined {
  const e = error as NodeJS.ErrnoException;
  if (!(error instanceof Error) || typeof e.code !== "string" || typeof e.path !== "string") return undefined;
  const onTheWay = cassette === e.path || cassette.startsWith(`${e.path}${sep}`);
  const beside = e.path.startsWith(`${dirname(cassette)}${sep}`);
  if (!onTheWay && !beside) return undefined;
  return cannotWrite(cassette, `${e.syscall ?? "writing"} ${e.path} failed (${e.code})`);
}
