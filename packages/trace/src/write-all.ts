import { closeSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { ensurePrivateDir, PRIVATE_FILE_MODE } from "./private-fs.js";

/** `fs.writeSync` over part of a buffer; returns how many bytes the system took (maybe fewer). */
export type WriteBytes = (fd: number, buffer: Uint8Array, offset: number, length: number) => number;

const writeBytes: WriteBytes = (fd, buffer, offset, length) => writeSync(fd, buffer, offset, length);

/**
 * Writes all of `data` to `fd`. One write call may take fewer bytes than it was given (a full
 * disk, a signal, a pipe), so the rest is written until none is left; a failure is thrown as an
 * error that names `what` and the system's reason (ENOSPC, EIO …), keeping its `code`.
 */
export function writeAllSync(
  fd: number,
  data: string | Uint8Array,
  what: string,
  write: WriteBytes = writeBytes,
): void {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  let offset = 0;
  while (offset < bytes.length) {
    let written: number;
    try {
      written = write(fd, bytes, offset, bytes.length - offset);
    } catch (err) {
      throw writeError(what, offset, bytes.length, err as NodeJS.ErrnoException);
    }
    if (written <= 0) {
      // A write that takes nothing and reports no error would loop for ever: treat it as an I/O error.
      throw writeError(what, offset, bytes.length, { code: "EIO", message: "the write took no bytes" });
    }
    offset += written;
  }
}

function writeError(
  what: string,
  done: number,
  total: number,
  cause: Pick<NodeJS.ErrnoException, "code" | "message">,
): NodeJS.ErrnoException {
  const reason = cause.code === "ENOSPC" ? "no space left on the device" : cause.message;
  const error: NodeJS.ErrnoException = new Error(
    `cannot write ${what}: ${reason}${cause.code ? ` (${cause.code})` : ""} after ${done} of ${total} bytes`,
    { cause },
  );
  error.code = cause.code;
  return error;
}

/**
 * Writes `data` as `destFile`, created 0600 (its folder 0700 when missing), replacing any file
 * there. The bytes go to a temporary file next to it that is renamed into place once all of them
 * are written, so a reader never sees half a file, and a failed write leaves nothing behind.
 */
export function writePrivateFileAtomically(
  destFile: string,
  data: string | Uint8Array,
  write: WriteBytes = writeBytes,
): void {
  const dir = dirname(destFile);
  ensurePrivateDir(dir);
  const temp = join(dir, `.${basename(destFile)}.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(temp, "wx", PRIVATE_FILE_MODE);
  try {
    writeAllSync(fd, data, destFile, write);
  } catch (err) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(temp, destFile);
}
