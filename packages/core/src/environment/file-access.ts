// "When the client offers file reading and writing, the file tools go through the client (so the
// agent sees the editor's unsaved buffers and the editor sees each write), with the same contract
// (windows, hashes, guards) as on disk." The seam is only the text of a file: read_file, edit_file
// and write_file still ask the disk whether a path exists, what it is, how large it is and whether
// it is binary, and compute line windows and hashes from the text the seam returns. Commands
// (exec_command) and every other tool see the disk.

export interface FileAccessOptions {
  /** The tool call's signal: it aborts on the user's interrupt or the call's timeout. */
  signal?: AbortSignal;
}

/** Where the file tools read and write the text of files (absolute paths). */
export interface FileAccess {
  /**
   * The whole text of a file as its holder has it (an editor: the open buffer, unsaved changes
   * included). Throws a `FileAccessError` saying why it cannot.
   */
  readText(path: string, options?: FileAccessOptions): Promise<string>;
  /** Replaces (or creates) a file's text; the holder decides when it reaches the disk. */
  writeText(path: string, text: string, options?: FileAccessOptions): Promise<void>;
}

/**
 * A read or write the seam's holder refused or failed; its message says what happened in words
 * the model can read after "Cannot read <path>: ".
 */
export class FileAccessError extends Error {
  override readonly name = "FileAccessError";
}
