import { constants, type Stats } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";

// File tools read and write regular files only. Opening a named pipe waits for a writer (or a
// reader), and reading a pipe, a terminal or a socket can wait forever: such a wait holds one
// of the few threads Node does file I/O on and cannot be cancelled, so it outlives the call's
// timeout and even keeps the process from exiting. Every open here is non-blocking, and
// anything but a regular file is refused before a byte is read or written.

/** What a path is, in words, when it is not a regular file or a folder. */
export function specialFileKind(info: Stats): string | undefined {
  if (info.isFIFO()) return "a named pipe (FIFO)";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  if (info.isSocket()) return "a socket";
  return undefined;
}

/** A file tool was pointed at a pipe, device or socket. */
export class SpecialFileError extends Error {
  override readonly name = "SpecialFileError";

  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(`${path} is ${kind}, not a regular file`);
  }
}

/**
 * The refusal the model reads: what the path is, why it is not opened, what to do instead.
 * `shown` is the path as the model sees it.
 */
export function specialFileMessage(action: string, shown: string, kind: string): string {
  return `Cannot ${action} ${shown}: it is ${kind}, not a regular file. File tools do not open pipes, devices or sockets, since reading or writing one can wait forever; use exec_command with a timeout (e.g. timeout 5 cat ${shown}) if you really need to.`;
}

/** `O_NONBLOCK`: a pipe opens at once (or fails with ENXIO) instead of waiting for its other end. */
const READ_WITHOUT_WAITING = constants.O_RDONLY | constants.O_NONBLOCK;
const WRITE_WITHOUT_WAITING = constants.O_WRONLY | constants.O_CREAT | constants.O_NONBLOCK;
/** Same as Node's default for new files (before the umask), as `writeFile` would create them. */
const NEW_FILE_MODE = 0o666;

async function regularOrClose(handle: FileHandle, path: string): Promise<FileHandle> {
  let kind: string | undefined;
  try {
    const info = await handle.stat();
    kind = info.isFile() ? undefined : (specialFileKind(info) ?? "not a regular file");
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
  if (kind === undefined) return handle;
  await handle.close().catch(() => {});
  throw new SpecialFileError(path, kind);
}

/**
 * Opens a file for reading without ever waiting on it: a pipe, device or socket is refused with
 * a `SpecialFileError` (checked on the opened file, so a path swapped after a `stat` is caught
 * too). The caller closes the handle.
 */
export async function openRegularForReading(path: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, READ_WITHOUT_WAITING);
  } catch (error) {
    // A unix socket cannot be opened at all; say what it is rather than "ENXIO".
    throw (error as NodeJS.ErrnoException).code === "ENXIO" ? new SpecialFileError(path, "a socket") : error;
  }
  return regularOrClose(handle, path);
}

/** The whole content of a regular file (refusing pipes, devices and sockets, see above). */
export async function readRegularFile(path: string): Promise<Buffer> {
  const handle = await openRegularForReading(path);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/**
 * Replaces a regular file's content (creating it if missing) without waiting on a pipe nobody
 * reads: a pipe, device or socket at `path` is refused with a `SpecialFileError` and left as it is.
 */
export async function writeRegularFile(path: string, content: string | Uint8Array): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(path, WRITE_WITHOUT_WAITING, NEW_FILE_MODE);
  } catch (error) {
    // ENXIO: a pipe with no reader, or a unix socket.
    throw (error as NodeJS.ErrnoException).code === "ENXIO"
      ? new SpecialFileError(path, "a named pipe (FIFO) or a socket")
      : error;
  }
  handle = await regularOrClose(handle, path);
  try {
    // Truncated only now: a special file found above is never touched.
    await handle.truncate(0);
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
}
