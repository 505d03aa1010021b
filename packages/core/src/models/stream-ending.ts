import type { OmniMessage } from "@penguin/protocol";
import { type ProviderAdapterOptions, rememberContextCallIds } from "./adapter-setup.js";
import { BlockStream } from "./block-stream.js";
import { type FailureOutcome, outcome, outcomeOfSdkError, type ProviderEndpoint } from "./outcomes.js";
import type { ToolCallIdRegistry } from "./tool-call-ids.js";
import type { ModelRequest } from "./types.js";
import { DEFAULT_IDLE_TIMEOUT_MS, WireControl } from "./wire-control.js";

/**
 * The beginning and the end that every SDK-backed adapter gives one request; what lies between
 * (reading its provider's events) is each adapter's own.
 */

/** How an adapter's reading of the provider's stream ended, when it did not throw. */
export interface StreamRead {
  /** The provider said the answer is complete (a finish reason, `response.completed`, `message_stop`). */
  finished: boolean;
  /** A failure the stream itself reported (an error event, a malformed chunk). */
  failure?: FailureOutcome;
}

/** What the reading of one request runs on: its cancellation, its open blocks, its address. */
export interface StreamParts {
  wire: WireControl;
  blocks: BlockStream;
  endpoint: ProviderEndpoint;
}

/**
 * Opens one request: its context's tool call ids are taken, its cancellation starts (the
 * caller's signal and the idle timeout), and no block is open yet.
 */
export function beginProviderStream(
  options: ProviderAdapterOptions,
  ids: ToolCallIdRegistry,
  request: ModelRequest,
): StreamParts {
  rememberContextCallIds(ids, request);
  return {
    wire: new WireControl(request.signal, options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS),
    blocks: new BlockStream(),
    endpoint: options,
  };
}

/** Said when a stream ends without the provider's end marker. */
const STREAM_CUT_SHORT = "the stream ended before the model finished its answer";

/**
 * The ending every SDK-backed adapter shares: yields what `read` yields, then decides how the
 * request ended. A stop from this side (the caller's abort, the idle timeout) wins over anything
 * else, since the SDKs end an aborted stream silently; otherwise the failure is the SDK's
 * exception, classified into an outcome (never rethrown), or the one the stream reported, or, for
 * a stream that ended without the provider's end marker, a cut-short answer. On a failure the
 * open block is abandoned with its status; otherwise it is closed. Returns the failure, or
 * undefined when the answer is complete.
 */
export async function* endProviderStream(
  read: AsyncGenerator<OmniMessage, StreamRead>,
  { wire, blocks, endpoint }: StreamParts,
): AsyncGenerator<OmniMessage, FailureOutcome | undefined> {
  let finished = false;
  let failure: FailureOutcome | undefined;
  try {
    ({ finished, failure } = yield* read);
  } catch (error) {
    failure = outcomeOfSdkError(error, endpoint);
  } finally {
    wire.dispose();
  }
  failure = wire.stopOutcome() ?? failure;
  if (!failure && !finished) failure = outcome("failed", STREAM_CUT_SHORT);
  if (failure) {
    yield* blocks.abandon(failure.status);
    return failure;
  }
  yield* blocks.close();
  return undefined;
}
