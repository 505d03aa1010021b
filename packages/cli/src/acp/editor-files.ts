import { type AgentContext, type ClientCapabilities, RequestError } from "@agentclientprotocol/sdk";
import { diskFileAccess, type FileAccess, FileAccessError, type FileAccessOptions } from "@penguin/core";

// "When the client offers file reading and writing, the file tools go through the client (so the
// agent sees the editor's unsaved buffers and the editor sees each write)": read_file, edit_file
// and write_file of a session read with `fs/read_text_file` and write with `fs/write_text_file`
// when the editor said in `initialize` that it can, and use the disk for what it cannot.

/** What the editor said in `initialize` it does with files (`clientCapabilities.fs`). */
export interface EditorFileCapabilities {
  readTextFile: boolean;
  writeTextFile: boolean;
}

export function editorFileCapabilities(capabilities: ClientCapabilities | undefined): EditorFileCapabilities {
  return {
    readTextFile: capabilities?.fs?.readTextFile === true,
    writeTextFile: capabilities?.fs?.writeTextFile === true,
  };
}

/**
 * How long one file request may wait for the editor: an editor that never answers fails the tool
 * call with a message instead of holding it until the call's own timeout.
 */
export const EDITOR_FILE_TIMEOUT_MS = 60_000;
/** JSON-RPC's "request cancelled": the answer to a request this seam gave up waiting for. */
const REQUEST_CANCELLED = -32800;
/** The texts kept for the tool updates' diffs: the files of the last few reads and writes. */
const KNOWN_TEXTS_KEPT = 32;
/** The most of an editor's error details a tool error quotes. */
const ERROR_DETAIL_MAX_CHARS = 300;

/**
 * A file request gives up (and tells the editor, with `$/cancel_request`) when the tool call is
 * interrupted or the editor takes too long.
 */
function requestOptions(signal: AbortSignal | undefined) {
  const timeout = AbortSignal.timeout(EDITOR_FILE_TIMEOUT_MS);
  return {
    cancellationSignal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    stopWaitingOnCancel: true,
  };
}

/** The editor's error in a sentence: its message, and the details it sent along. */
function editorError(error: unknown): string {
  if (!(error instanceof RequestError)) return error instanceof Error ? error.message : String(error);
  const data: unknown = error.data;
  let details = "";
  if (typeof data === "string") details = data;
  else if (data && typeof data === "object" && "details" in data && typeof data.details === "string")
    details = data.details;
  else if (data !== undefined && data !== null) details = JSON.stringify(data);
  if (details.length > ERROR_DETAIL_MAX_CHARS) details = `${details.slice(0, ERROR_DETAIL_MAX_CHARS)}…`;
  return details === "" || details === "{}" ? error.message : `${error.message}: ${details}`;
}

/**
 * One session's files through the editor. Paths are absolute, as the tools resolve them and as
 * ACP requires. The text last read from or written to each file is kept (for a few files), so the
 * tool updates can show an edit's diff against the buffer the agent saw, not the disk.
 */
export class EditorFiles implements FileAccess {
  private readonly known = new Map<string, string>();

  constructor(
    private readonly client: AgentContext,
    private readonly capabilities: EditorFileCapabilities,
    private readonly sessionId: () => string,
  ) {}

  /** A seam for a session, or undefined when the editor offers neither reading nor writing (the disk then). */
  static offeredBy(
    client: AgentContext,
    capabilities: EditorFileCapabilities,
    sessionId: () => string,
  ): EditorFiles | undefined {
    if (!capabilities.readTextFile && !capabilities.writeTextFile) return undefined;
    return new EditorFiles(client, capabilities, sessionId);
  }

  /** The text the agent last saw of a file through this seam, if kept. */
  knownText(path: string): string | undefined {
    return this.known.get(path);
  }

  async readText(path: string, options: FileAccessOptions = {}): Promise<string> {
    if (!this.capabilities.readTextFile) return this.remember(path, await diskFileAccess.readText(path));
    try {
      const answer = await this.client.request(
        "fs/read_text_file",
        { sessionId: this.sessionId(), path },
        requestOptions(options.signal),
      );
      if (typeof answer?.content !== "string") {
        throw new FileAccessError("the editor answered fs/read_text_file without the file's text");
      }
      return this.remember(path, answer.content);
    } catch (error) {
      if (error instanceof FileAccessError) throw error;
      throw new FileAccessError(`the editor could not read it (${this.why(error, options.signal)})`);
    }
  }

  async writeText(path: string, text: string, options: FileAccessOptions = {}): Promise<void> {
    if (!this.capabilities.writeTextFile) {
      await diskFileAccess.writeText(path, text);
      this.remember(path, text);
      return;
    }
    try {
      await this.client.request(
        "fs/write_text_file",
        { sessionId: this.sessionId(), path, content: text },
        requestOptions(options.signal),
      );
    } catch (error) {
      throw new FileAccessError(`the editor could not write it (${this.why(error, options.signal)})`);
    }
    this.remember(path, text);
  }

  private why(error: unknown, signal: AbortSignal | undefined): string {
    if (signal?.aborted) return "the call was interrupted before the editor answered";
    const timedOut =
      (error instanceof DOMException && error.name === "TimeoutError") ||
      (error instanceof RequestError && error.code === REQUEST_CANCELLED);
    if (timedOut) {
      return `no answer within ${EDITOR_FILE_TIMEOUT_MS / 1000} s`;
    }
    return editorError(error);
  }

  private remember(path: string, text: string): string {
    this.known.delete(path);
    this.known.set(path, text);
    if (this.known.size > KNOWN_TEXTS_KEPT) {
      const oldest = this.known.keys().next().value;
      if (oldest !== undefined) this.known.delete(oldest);
    }
    return text;
  }
}
