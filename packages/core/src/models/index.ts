// Model adapters: one per wire protocol, chosen per provider by the registry. Each streams
// partials and complete messages and returns its outcome; none throws, none retries.

export {
  type AnthropicMessagesOptions,
  anthropicUsage,
  createAnthropicMessagesModel,
} from "./anthropic-messages.js";
export { ANTHROPIC_DEFAULT_MAX_TOKENS, ANTHROPIC_THINKING_BUDGET } from "./anthropic-request.js";
export { CassetteError, type CassetteProblem, loadCassette, parseCassette } from "./cassette.js";
// The header list of the provider fetch (http/node-http-fetch.ts, loaded with an SDK): the CLI's
// bundle gives it to the SDKs' modules in place of Node's `Headers`.
export { FetchHeaders } from "./http/fetch-headers.js";
export { chatUsage, createOpenAIChatModel, type OpenAIChatOptions } from "./openai-chat.js";
export {
  COMPATIBLE_REASONING_EFFORT,
  type MaxTokensField,
  OPENAI_REASONING_EFFORT,
  type ReasoningEffortMap,
} from "./openai-chat-request.js";
export {
  createOpenAIResponsesModel,
  type OpenAIResponsesOptions,
  responsesUsage,
} from "./openai-responses.js";
export { outcomeOfStatus, retryAfterMsOf } from "./outcomes.js";
export {
  CASSETTE_FILE_MODE,
  createRecordingModel,
  type RecordingModelOptions,
  recordedTurn,
} from "./recorder.js";
export {
  createModelAdapter,
  type ModelAdapterOptions,
  type ModelAdapterResult,
  PROVIDER_PROFILES,
  type ProviderProfile,
  type WireProtocol,
} from "./registry.js";
export {
  createReplayModel,
  REPLAY_DEFAULT_CONTEXT_WINDOW,
  REPLAY_DEFAULT_STALL_TIMEOUT_MS,
  type ReplayModelOptions,
} from "./replay.js";
export { DEFAULT_REQUEST_TIMEOUT_MS } from "./sdk-client.js";
export { createToolCallIdRegistry, type ToolCallIdRegistry } from "./tool-call-ids.js";
export type { ModelAdapter, ModelInfo, ModelOutcome, ModelRequest, ThinkingLevel } from "./types.js";
export { estimateRequestTokens, estimateTokensOfText } from "./usage.js";
export { DEFAULT_IDLE_TIMEOUT_MS } from "./wire-control.js";
