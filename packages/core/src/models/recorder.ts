import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import {
  type CompleteModelPayload,
  errorMessage,
  type ModelScript,
  type OmniMessage,
  type ScriptTurn,
  scriptSchemas,
} from "@penguin/protocol";
import { stringify } from "yaml";
import { SecretRedactor } from "../environment/redact.js";
import { REPLAY_DEFAULT_CHUNK_SIZE } from "./replay.js";
import type { ModelAdapter, ModelOutcome, ModelRequest } from "./types.js";

/**
 * The recorder of the `replay` model: wraps a live adapter and saves every request's turn as a
 * cassette (the `ModelScriptSchema` YAML that `replay:FILE` plays), so a session recorded once
 * against a real provider replays deterministically, without a key, in the user's own CI.
 *
 * Each turn keeps what the harness received: thinking (and its signature), text, tool calls with
 * their ids, names and arguments exactly as streamed, and usage. A failed request becomes a
 * failure turn (an HTTP error, or a stream cut after the content it delivered), so a replay
 * reproduces the engine's retries. The file is rewritten atomically (mode 0600) after every
 * request, so a crash keeps every request recorded before it. Secret values are redacted.
 */

/** Files the recorder creates are private: a cassette holds whatever the model wrote. */
export const CASSETTE_FILE_MODE = 0o600;
const CASSETTE_DIR_MODE = 0o700;

export interface RecordingModelOptions {
  /** Values replaced by the redaction marker in everything recorded (API keys, configured secrets). */
  secrets?: readonly string[];
  /** The cassette's `description` (default: which model was recorded). */
  description?: string;
}

/** A recording that could not be written; the request that completed it fails with this message. */
function writeFailure(file: string, error: unknown): ModelOutcome["errorMessage"] {
  const reason = errorMessage(error);
  return `recording the model turn to ${file} failed (${reason})`;
}

/** Writes `text` to `file` atomically: a 0600 temporary file in the same folder, flushed, renamed over it. */
function writeAtomically(file: string, text: string): void {
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true, mode: CASSETTE_DIR_MODE });
  const temp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  const fd = openSync(temp, "w", CASSETTE_FILE_MODE);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, file);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // The temporary file is gone already.
    }
    throw error;
  }
}

/** How many deltas the replay model streams for `text` (it splits by code points). */
function replayChunks(text: string | undefined): number {
  if (!text) return 0;
  return Math.ceil(Array.from(text).length / REPLAY_DEFAULT_CHUNK_SIZE);
}

/** What the harness received from one request: its complete messages, in stream order. */
class TurnCapture {
  private thinking: string[] = [];
  private signature: string | undefined;
  private text: string[] = [];
  private calls: NonNullable<ScriptTurn["tool_calls"]> = [];

  constructor(private readonly redactor: SecretRedactor) {}

  /** Keeps a complete message (partials are ignored: the complete message carries the same content). */
  see(message: OmniMessage): void {
    if (message.type !== "model_msg") return;
    const payload = message.payload as CompleteModelPayload;
    if (payload.role !== "assistant") return;
    switch (payload.type) {
      case "thinking": {
        this.thinking.push(this.redactor.redact(payload.thinking));
        const signature = payload.fidelity?.signature;
        if (typeof signature === "string") this.signature = signature;
        break;
      }
      case "text":
        this.text.push(this.redactor.redact(payload.text));
        break;
      case "tool_call":
        this.calls.push({
          id: payload.tool_call_id,
          name: payload.name,
          arguments: argumentsForCassette(this.redactor.redact(payload.arguments)),
        });
        break;
    }
  }

  /**
   * The content part of the turn. The cassette format holds one thinking block, one text block
   * and then the tool calls, so several blocks of one kind are joined in order.
   */
  content(): Pick<ScriptTurn, "thinking" | "thinking_signature" | "text" | "tool_calls"> {
    const turn: Pick<ScriptTurn, "thinking" | "thinking_signature" | "text" | "tool_calls"> = {};
    if (this.thinking.length > 0) turn.thinking = this.thinking.join("");
    if (this.signature !== undefined && turn.thinking !== undefined) turn.thinking_signature = this.signature;
    if (this.text.length > 0) turn.text = this.text.join("");
    if (this.calls.length > 0) turn.tool_calls = this.calls;
    return turn;
  }
}

/**
 * Arguments as streamed. A JSON object that prints back byte for byte is kept as a YAML mapping
 * (readable, and the replay model sends `JSON.stringify` of it: the same bytes); anything else
 * (other spacing, malformed JSON) stays the exact string.
 */
function argumentsForCassette(text: string): string | Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (
      typeof parsed === "object" &&
      parsed !== null &&
      !Array.isArray(parsed) &&
      JSON.stringify(parsed) === text
    )
      return parsed as Record<string, unknown>;
  } catch {
    // Not JSON: kept verbatim, so a replay sends the same malformed arguments.
  }
  return text;
}

/** `outcomeOfStatus` writes "HTTP <status>: <message>"; the replay model adds the prefix again. */
function providerMessage(outcome: ModelOutcome): string | undefined {
  const message = outcome.errorMessage;
  if (message === undefined) return undefined;
  const prefix = `HTTP ${outcome.httpStatus}: `;
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}

/** The cassette turn of one finished request. */
export function recordedTurn(
  content: Pick<ScriptTurn, "thinking" | "thinking_signature" | "text" | "tool_calls">,
  outcome: ModelOutcome,
  redactor: SecretRedactor,
): ScriptTurn {
  if (outcome.status === "completed") {
    const { usage } = outcome;
    const input = Math.max(0, usage.total - usage.cache_read - usage.cache_write - usage.output);
    const hasContent =
      content.thinking !== undefined || content.text !== undefined || content.tool_calls !== undefined;
    return {
      ...content,
      // A reply with no content at all still needs something a turn can hold.
      ...(hasContent ? {} : { text: "" }),
      usage: {
        input_tokens: input,
        output_tokens: usage.output,
        cache_read_tokens: usage.cache_read,
        cache_write_tokens: usage.cache_write,
      },
    };
  }
  if (outcome.httpStatus !== undefined) {
    const message = providerMessage(outcome);
    return {
      error: {
        status: outcome.httpStatus,
        ...(message !== undefined ? { message: redactor.redact(message) } : {}),
        ...(outcome.retryAfterMs !== undefined ? { retry_after: outcome.retryAfterMs / 1000 } : {}),
      },
    };
  }
  // The stream broke after delivering `content`: the replay streams all of it, then fails the
  // same way (a malformed chunk as malformed; a cut, a timeout or another failure as a cut; an
  // interrupt as a stall that only the replaying caller's interrupt ends).
  const afterChunks =
    replayChunks(content.thinking) +
    replayChunks(content.text) +
    (content.tool_calls ?? []).reduce(
      (sum, call) =>
        sum +
        replayChunks(typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments)),
      0,
    );
  const label = outcome.errorMessage
    ? `recorded ${outcome.status}: ${redactor.redact(outcome.errorMessage)}`
    : undefined;
  const failure =
    outcome.status === "malformed"
      ? { malformed: { after_chunks: afterChunks } }
      : outcome.status === "aborted"
        ? { stall: { after_chunks: afterChunks } }
        : { cut: { after_chunks: afterChunks } };
  return { ...(label ? { label } : {}), ...content, ...failure };
}

/**
 * Wraps `inner` so every request it serves is appended to the cassette `file` (created now,
 * replaced if it exists). The wrapper streams exactly what `inner` streams and returns its
 * outcome; it throws only here, when the file cannot be created.
 */
export function createRecordingModel(
  inner: ModelAdapter,
  file: string,
  options: RecordingModelOptions = {},
): ModelAdapter {
  const redactor = new SecretRedactor(options.secrets ?? []);
  const { provider, modelId } = inner.info;
  const cassette: ModelScript = {
    version: 1,
    description:
      options.description ?? `recorded from ${provider}/${modelId}; replay with the model replay:${file}`,
    turns: [],
  };
  const save = () => {
    // Validated before it is written: a recording that its own replay could not read is a bug.
    const valid = scriptSchemas().ModelScriptSchema.parse(cassette);
    writeAtomically(file, stringify(valid, { lineWidth: 0 }));
  };
  save();

  async function* stream(request: ModelRequest): AsyncGenerator<OmniMessage, ModelOutcome> {
    const capture = new TurnCapture(redactor);
    const source = inner.stream(request);
    let outcome: ModelOutcome | undefined;
    try {
      while (true) {
        const step = await source.next();
        if (step.done) {
          outcome = step.value;
          break;
        }
        capture.see(step.value);
        yield step.value;
      }
    } finally {
      // A caller that stops reading early ends the inner stream too (its request is not recorded).
      if (outcome === undefined) await source.return(undefined as never);
    }
    cassette.turns.push(recordedTurn(capture.content(), outcome, redactor));
    try {
      save();
    } catch (error) {
      // The caller asked for a recording: a turn that cannot be kept fails loudly, once.
      return {
        status: "failed",
        errorMessage: writeFailure(file, error),
        permanent: true,
        usage: outcome.usage,
      };
    }
    return outcome;
  }

  return { info: inner.info, stream };
}
