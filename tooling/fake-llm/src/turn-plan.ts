import type { ScriptTurn, ScriptUsage } from "@penguin/protocol";
import { DEFAULT_CHUNK_SIZE, splitIntoChunks } from "./chunking.js";

/** Script format: "Delay between streamed chunks, in milliseconds (default 0)". */
export const DEFAULT_CHUNK_DELAY_MS = 0;

/** Rough size of a token when usage is not scripted: about four characters of English text. */
export const ESTIMATED_CHARS_PER_TOKEN = 4;

export interface PlannedToolCall {
  id: string;
  name: string;
  /** The arguments exactly as sent on the wire (a JSON text, or a scripted malformed string). */
  arguments: string;
  chunks: string[];
}

export interface PlannedText {
  full: string;
  chunks: string[];
}

export type StreamFailureKind = "stall" | "cut" | "malformed";

export interface StreamFailure {
  kind: StreamFailureKind;
  afterChunks: number;
}

/** A script turn resolved into what every protocol writer needs: deltas, ids and usage. */
export interface TurnPlan {
  turnIndex: number;
  thinking?: PlannedText;
  thinkingSignature?: string;
  text?: PlannedText;
  toolCalls: PlannedToolCall[];
  usage: ScriptUsage;
  /** Part of `usage.output_tokens` spent on thinking (OpenAI reports it separately). */
  reasoningTokens: number;
  chunkDelayMs: number;
  failure?: StreamFailure;
}

export function estimateTokens(chars: number): number {
  return Math.ceil(chars / ESTIMATED_CHARS_PER_TOKEN);
}

/** The parts of a request body that a provider bills as input, whichever protocol it uses. */
const BILLED_REQUEST_FIELDS = ["system", "instructions", "messages", "input", "tools"] as const;

export function estimateInputTokens(body: unknown): number {
  if (typeof body !== "object" || body === null) return 0;
  const record = body as Record<string, unknown>;
  let chars = 0;
  for (const field of BILLED_REQUEST_FIELDS) {
    const value = record[field];
    if (value !== undefined) chars += typeof value === "string" ? value.length : JSON.stringify(value).length;
  }
  return estimateTokens(chars);
}

/** The first failure of a turn; a turn scripting several uses stall, then cut, then malformed. */
function failureOf(turn: ScriptTurn): StreamFailure | undefined {
  if (turn.stall) return { kind: "stall", afterChunks: turn.stall.after_chunks };
  if (turn.cut) return { kind: "cut", afterChunks: turn.cut.after_chunks };
  if (turn.malformed) return { kind: "malformed", afterChunks: turn.malformed.after_chunks };
  return undefined;
}

export function planTurn(turn: ScriptTurn, turnIndex: number, requestBody: unknown): TurnPlan {
  const chunkSize = turn.chunk_size ?? DEFAULT_CHUNK_SIZE;
  const planText = (full: string): PlannedText => ({ full, chunks: splitIntoChunks(full, chunkSize) });
  const toolCalls = (turn.tool_calls ?? []).map((call, n): PlannedToolCall => {
    const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
    return {
      id: call.id ?? `call_${turnIndex}_${n}`,
      name: call.name,
      arguments: args,
      chunks: splitIntoChunks(args, chunkSize),
    };
  });
  const thinkingChars = turn.thinking?.length ?? 0;
  const outputChars =
    thinkingChars +
    (turn.text?.length ?? 0) +
    toolCalls.reduce((sum, call) => sum + call.name.length + call.arguments.length, 0);
  const usage: ScriptUsage = turn.usage ?? {
    input_tokens: estimateInputTokens(requestBody),
    output_tokens: estimateTokens(outputChars),
    cache_read_tokens: 0,
    cache_write_tokens: 0,
  };
  return {
    turnIndex,
    thinking: turn.thinking === undefined ? undefined : planText(turn.thinking),
    thinkingSignature: turn.thinking_signature,
    text: turn.text === undefined ? undefined : planText(turn.text),
    toolCalls,
    usage,
    reasoningTokens: Math.min(estimateTokens(thinkingChars), usage.output_tokens),
    chunkDelayMs: turn.chunk_delay_ms ?? DEFAULT_CHUNK_DELAY_MS,
    failure: failureOf(turn),
  };
}

/**
 * Every input token, cached or not. The script's `input_tokens` follows Anthropic's meaning
 * (input neither read from nor written to the cache); OpenAI's `prompt_tokens` and
 * `input_tokens` include the cached part.
 */
export function totalInputTokens(usage: ScriptUsage): number {
  return usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
}
