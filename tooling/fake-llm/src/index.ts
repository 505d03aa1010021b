/**
 * @penguin/fake-llm: protocol-faithful fake model servers, scripted per test, so the real
 * provider SDKs are exercised over real HTTP.
 */
export { DEFAULT_CHUNK_SIZE, splitIntoChunks } from "./chunking.js";
export { DEFAULT_MODEL } from "./protocols/models.js";
export type { ModelProtocolName } from "./protocols/protocol.js";
export type { RecordedRequest, RequestOutcome } from "./request-log.js";
export {
  loadScript,
  type ModelScriptInput,
  parseScript,
  ScriptLoadError,
  type ScriptTurnInput,
} from "./script-loader.js";
export {
  DEFAULT_HOST,
  DEFAULT_PORT,
  type FakeLlm,
  type FakeLlmOptions,
  type FakeLlmScript,
  startFakeLlm,
} from "./server.js";
export { ESTIMATED_CHARS_PER_TOKEN } from "./turn-plan.js";
