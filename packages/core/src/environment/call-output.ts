import { ArchiveCapture } from "./archive.js";
import type { RedactingStream } from "./redact.js";
import { HeadWindow } from "./truncate.js";
import { WellFormedStream } from "./well-formed.js";

// The text of one tool call on its way from the tool to the user and the model:
//   tool chunk -> well-formed -> (raw copy to the archive capture) -> redaction -> head window.
// Every string this returns is emitted as one delta, and the complete output is exactly their
// concatenation, so "what a user sees equals what the model gets" holds by construction.

export class CallOutput {
  private readonly wellFormed = new WellFormedStream();
  private readonly window: HeadWindow;
  private readonly capture: ArchiveCapture | undefined;
  private text = "";
  private bodyLength = 0;

  constructor(
    limit: number,
    private readonly redaction: RedactingStream,
    /** Keep a raw copy for the recovery file (only when truncation is possible and a scratchpad exists). */
    archive: boolean,
  ) {
    this.window = new HeadWindow(limit);
    this.capture = archive && limit > 0 ? new ArchiveCapture() : undefined;
  }

  /** Everything emitted so far: the complete output once the call is closed. */
  get output(): string {
    return this.text;
  }

  /** Whether the tool's text was empty (before any marker was appended). */
  get bodyEmpty(): boolean {
    return this.bodyLength === 0;
  }

  get truncated(): boolean {
    return this.window.truncated;
  }

  /** The raw capture, when the output was truncated and a recovery file should be written. */
  get archiveCapture(): ArchiveCapture | undefined {
    return this.window.truncated ? this.capture : undefined;
  }

  /** Gives the capture's memory back once the recovery file is written or known not needed. */
  releaseCapture(): void {
    this.capture?.release();
  }

  /** A chunk of tool text; returns the delta to emit ("" when nothing is visible yet). */
  push(chunk: string): string {
    return this.body(this.wellFormed.push(chunk));
  }

  /** The end of the tool's text: flushes what the streaming stages held back. */
  endBody(): string {
    const rest = this.wellFormed.flush();
    return this.body(rest) + this.emit(this.window.push(this.redaction.flush()));
  }

  /**
   * A marker block outside the truncation window, on its own line. The caller has redacted it
   * where it can carry tool text.
   */
  appendBlock(block: string): string {
    if (block.length === 0) return "";
    const separator = this.text.length > 0 && !this.text.endsWith("\n") ? "\n" : "";
    return this.emit(separator + block);
  }

  private body(text: string): string {
    if (text.length === 0) return "";
    this.bodyLength += text.length;
    this.capture?.push(text);
    // Past the visible cap nothing more is streamed or sent to the model; redacting the rest
    // would only make garbage on the hot path of a command printing gigabytes.
    if (this.window.truncated) return "";
    return this.emit(this.window.push(this.redaction.push(text)));
  }

  private emit(text: string): string {
    this.text += text;
    return text;
  }
}
