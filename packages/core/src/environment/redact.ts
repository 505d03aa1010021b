import { REDACTED_MARKER } from "./markers.js";

// "Secrets redacted at the source": configured secret values never reach the stream, the model
// or the trace. Output arrives in chunks and a secret may straddle two of them, so the streaming
// redactor holds back the last (longest secret − 1) characters until it knows no secret starts
// there.

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The secrets worth matching: no empty or blank values, no duplicates, longest first. */
function normalizeSecrets(secrets: readonly string[]): string[] {
  const unique = [...new Set(secrets.filter((secret) => secret.trim().length > 0))];
  // Longest first: where two secrets start at the same place the alternation takes the longer.
  return unique.sort((a, b) => b.length - a.length);
}

export class SecretRedactor {
  private readonly pattern: RegExp | undefined;
  private readonly holdBack: number;

  constructor(secrets: readonly string[]) {
    const list = normalizeSecrets(secrets);
    this.pattern = list.length > 0 ? new RegExp(list.map(escapeRegExp).join("|"), "g") : undefined;
    this.holdBack = list.length > 0 ? list[0].length - 1 : 0;
  }

  get active(): boolean {
    return this.pattern !== undefined;
  }

  /** A whole string, redacted (notes, error messages: text that is not streamed). */
  redact(text: string): string {
    return this.pattern ? text.replace(this.pattern, REDACTED_MARKER) : text;
  }

  /** A streaming redactor over these secrets. */
  stream(): RedactingStream {
    return new RedactingStream(this.pattern, this.holdBack);
  }
}

export class RedactingStream {
  private buffer = "";

  constructor(
    private readonly pattern: RegExp | undefined,
    private readonly holdBack: number,
  ) {}

  /** Feeds a chunk; returns the text that is now known to be final (possibly ""). */
  push(chunk: string): string {
    if (!this.pattern) return chunk;
    this.buffer += chunk;
    // A match can only be trusted if it starts where every secret would fit inside the buffer.
    let safeEnd = Math.max(0, this.buffer.length - this.holdBack);
    // Never end a piece between the halves of a surrogate pair: later stages see whole characters.
    const code = this.buffer.charCodeAt(safeEnd - 1);
    if (safeEnd > 0 && code >= 0xd800 && code <= 0xdbff) safeEnd -= 1;
    return this.drain(safeEnd);
  }

  /** The held-back rest, redacted. */
  flush(): string {
    if (!this.pattern) return "";
    return this.drain(this.buffer.length);
  }

  /** Emits the buffer up to `safeEnd` (a match starting before it may extend past it). */
  private drain(safeEnd: number): string {
    const pattern = this.pattern!;
    const buffer = this.buffer;
    let out = "";
    let position = 0;
    for (;;) {
      pattern.lastIndex = position;
      const match = pattern.exec(buffer);
      if (!match || match.index >= safeEnd) break;
      out += buffer.slice(position, match.index) + REDACTED_MARKER;
      position = match.index + match[0].length;
    }
    const end = Math.max(position, safeEnd);
    out += buffer.slice(position, end);
    this.buffer = buffer.slice(end);
    return out;
  }
}
