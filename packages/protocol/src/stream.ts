// @penguin/protocol/stream: what a front end runs to follow a live stream (the partial-stream
// aggregator, the reader of half-streamed arguments, and the text of a caught error, the metrics vocabulary, the token estimate of a text) without the
// zod schemas of the main entry, so a browser bundle (or the CLI's start-up path) that needs only
// these stays small. Types come from the main entry.

export {
  matchesComplete,
  type OpenPartialStream,
  PartialAggregator,
  type PartialKind,
  type StreamedPayload,
  streamKeyOf,
} from "./aggregate.js";
export { errorMessage, errorStack } from "./error-message.js";
export { METRICS_SUMMARIES } from "./metrics.js";
export {
  CALL_DESCRIPTION_KEYS,
  readStreamingArgument,
  type StreamingString,
} from "./streaming-arguments.js";
export { ESTIMATED_CHARS_PER_TOKEN, estimateTokensOfText } from "./tokens.js";
