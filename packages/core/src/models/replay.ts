import type { ModelScript, OmniMessage, ScriptTurn } from "@penguin/protocol";
import { sleepUnlessAborted } from "./abort.js";
import { BlockStream } from "./block-stream.js";
import { loadCassette } from "./cassette.js";
import { type FailureOutcome, outcome, outcomeOfStatus, withUsage } from "./outcomes.js";
import { createToolCallIdRegistry, type ToolCallIdRegistry } from "./tool-call-ids.js";
import type { ModelAdapter, ModelOutcome, ModelRequest } from "./types.js";
import { estimateRequestTokens, estimateTokensOfText, tokenCounts } from "./usage.js";

/**
 * The `replay` model: plays the turns of a cassette inside the harness, without HTTP. Each
 * request consumes the next turn and streams it exactly as a provider adapter would (partials,
 * then complete messages), so tests and demos exercise the real engine path deterministically.
 */

/** Script format: "Characters per streamed delta (default 16)". */
export const REPLAY_DEFAULT_CHUNK_SIZE = 16;
/** A stalled turn ends as `timeout` after this long without an abort (like an adapter's idle timeout). */
export const REPLAY_DEFAULT_STALL_TIMEOUT_MS = 60_000;
/** A replayed model's context window, unless configured. */
export const REPLAY_DEFAULT_CONTEXT_WINDOW = 200_000;

export interface ReplayModelOptions {
  /** The cassette file; also the model id. */
  file: string;
  /** The cassette already loaded (by default it is read from `file` now, throwing `CassetteError`). */
  cassette?: ModelScript;
  /** Session-scoped tool call ids; a fresh registry when omitted. */
  toolCallIds?: ToolCallIdRegistry;
  stallTimeoutMs?: number;
  contextWindow?: number;
}

/** Splits text into deltas of at most `size` code points (an emoji never splits). */
function chunksOf(text: string, size: number): string[] {
  const points = Array.from(text);
  const chunks: string[] = [];
  for (let start = 0; start < points.length; start += size)
    chunks.push(points.slice(start, start + size).join(""));
  return chunks;
}

/** One step of a replayed stream; the failure of a turn lands between steps. */
type Step =
  | { kind: "thinking" | "text"; open: true }
  | { kind: "tool_call"; open: true; id: string; name: string }
  | { kind: "delta"; fragment: string }
  | { kind: "close" };

interface ReplayedTurn {
  steps: Step[];
  outputText: string;
  signature?: string;
}

function planTurn(turn: ScriptTurn, turnIndex: number, ids: ToolCallIdRegistry): ReplayedTurn {
  const size = turn.chunk_size ?? REPLAY_DEFAULT_CHUNK_SIZE;
  const steps: Step[] = [];
  let outputText = "";
  const block = (open: Step, text: string) => {
    steps.push(open);
    for (const fragment of chunksOf(text, size)) steps.push({ kind: "delta", fragment });
    steps.push({ kind: "close" });
    outputText += text;
  };
  if (turn.thinking !== undefined) block({ kind: "thinking", open: true }, turn.thinking);
  if (turn.text !== undefined) block({ kind: "text", open: true }, turn.text);
  (turn.tool_calls ?? []).forEach((call, n) => {
    const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
    const id = ids.intern(call.id ?? `call_${turnIndex}_${n}`);
    outputText += call.name;
    block({ kind: "tool_call", open: true, id, name: call.name }, args);
  });
  return { steps, outputText, signature: turn.thinking_signature };
}

function failureOf(
  turn: ScriptTurn,
): { kind: "stall" | "cut" | "malformed"; afterChunks: number } | undefined {
  if (turn.stall) return { kind: "stall", afterChunks: turn.stall.after_chunks };
  if (turn.cut) return { kind: "cut", afterChunks: turn.cut.after_chunks };
  if (turn.malformed) return { kind: "malformed", afterChunks: turn.malformed.after_chunks };
  return undefined;
}

export function createReplayModel(options: ReplayModelOptions): ModelAdapter {
  const { file } = options;
  const cassette = options.cassette ?? loadCassette(file);
  const ids = options.toolCallIds ?? createToolCallIdRegistry();
  const stallTimeoutMs = options.stallTimeoutMs ?? REPLAY_DEFAULT_STALL_TIMEOUT_MS;
  let consumed = 0;

  async function* play(request: ModelRequest): AsyncGenerator<OmniMessage, ModelOutcome> {
    const { signal } = request;
    if (signal?.aborted) return withUsage(outcome("aborted", "the request was aborted before it started"));
    const turnIndex = consumed++;
    const turn = cassette.turns[turnIndex];
    if (!turn) {
      return withUsage(
        outcome("failed", `cassette ${file} has no turn left for request ${turnIndex + 1}`, {
          permanent: true,
        }),
      );
    }
    const label = turn.label ? ` (${turn.label})` : "";
    if (turn.error) {
      const message = turn.error.message ?? `scripted error in turn ${turnIndex + 1}${label}`;
      const retryAfterMs = turn.error.retry_after === undefined ? undefined : turn.error.retry_after * 1000;
      return withUsage(outcomeOfStatus(turn.error.status, message, retryAfterMs));
    }
    for (const message of request.messages) {
      if (message.payload.type === "tool_call") ids.remember(message.payload.tool_call_id);
    }

    const planned = planTurn(turn, turnIndex, ids);
    const failure = failureOf(turn);
    const delayMs = turn.chunk_delay_ms ?? 0;
    const blocks = new BlockStream();
    const lastClose = planned.steps.length - 1;
    let deltas = 0;

    const fail = async function* (): AsyncGenerator<OmniMessage, FailureOutcome> {
      const where = `turn ${turnIndex + 1}${label} of cassette ${file}`;
      let result: FailureOutcome;
      if (failure!.kind === "cut")
        result = outcome("failed", `the stream was cut after ${deltas} chunk(s) (${where})`);
      else if (failure!.kind === "malformed") {
        result = outcome("malformed", `a malformed chunk followed chunk ${deltas} (${where})`);
      } else if ((await sleepUnlessAborted(stallTimeoutMs, signal)) === "aborted") {
        result = outcome("aborted", "the request was aborted");
      } else {
        result = outcome("timeout", `no data for ${stallTimeoutMs} ms after chunk ${deltas} (${where})`);
      }
      yield* blocks.abandon(result.status);
      return result;
    };

    for (let i = 0; i < planned.steps.length; i++) {
      const step = planned.steps[i]!;
      const failsHere =
        failure !== undefined &&
        ((i === 0 && failure.afterChunks === 0) ||
          (step.kind === "delta" && deltas === failure.afterChunks) ||
          // With no more deltas than `after_chunks`, the failure comes after the last one.
          i === lastClose);
      if (failsHere) return withUsage(yield* fail());
      if (step.kind === "delta") {
        if (delayMs > 0 && deltas > 0 && (await sleepUnlessAborted(delayMs, signal)) === "aborted") {
          yield* blocks.abandon("aborted");
          return withUsage(outcome("aborted", "the request was aborted"));
        }
        if (signal?.aborted) {
          yield* blocks.abandon("aborted");
          return withUsage(outcome("aborted", "the request was aborted"));
        }
        deltas++;
        if (blocks.openKind === "thinking") yield* blocks.thinking(step.fragment);
        else if (blocks.openKind === "text") yield* blocks.text(step.fragment);
        else yield* blocks.toolCallArguments(step.fragment);
      } else if (step.kind === "close") {
        const isThinking = blocks.openKind === "thinking";
        yield* blocks.close(
          isThinking && planned.signature !== undefined ? { signature: planned.signature } : undefined,
        );
      } else if (step.kind === "tool_call") {
        yield* blocks.startToolCall(step.id, step.name);
      } else if (step.kind === "thinking") {
        yield* blocks.startThinking();
      } else {
        yield* blocks.startText();
      }
    }
    // A failure scripted on a turn with no content at all.
    if (failure !== undefined && planned.steps.length === 0) return withUsage(yield* fail());

    const usage = turn.usage
      ? tokenCounts({
          uncached: turn.usage.input_tokens,
          cacheRead: turn.usage.cache_read_tokens,
          cacheWrite: turn.usage.cache_write_tokens,
          output: turn.usage.output_tokens,
        })
      : tokenCounts({
          uncached: estimateRequestTokens(request),
          cacheRead: 0,
          cacheWrite: 0,
          output: estimateTokensOfText(planned.outputText),
        });
    return { status: "completed", usage };
  }

  return {
    info: {
      provider: "replay",
      modelId: file,
      contextWindow: options.contextWindow ?? REPLAY_DEFAULT_CONTEXT_WINDOW,
      vision: false,
    },
    stream: play,
  };
}
