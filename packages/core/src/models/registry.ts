import {
  findModel,
  type ModelEntry,
  type ModelRef,
  type ProjectConfig,
  type ProviderApi,
  parseModelRef,
  providerEnvPrefix,
  REPLAY_PROVIDER,
  resolveCredentials,
} from "@penguin/state";
import type { ProviderAdapterOptions } from "./adapter-setup.js";
import { createAnthropicMessagesModel } from "./anthropic-messages.js";
import { CassetteError } from "./cassette.js";
import { createOpenAIChatModel } from "./openai-chat.js";
import {
  COMPATIBLE_REASONING_EFFORT,
  type MaxTokensField,
  OPENAI_REASONING_EFFORT,
  type ReasoningEffortMap,
} from "./openai-chat-request.js";
import { createOpenAIResponsesModel } from "./openai-responses.js";
import { createReplayModel } from "./replay.js";
import type { ModelAdapter } from "./types.js";

/**
 * Chooses a model adapter by provider. Providers differ only by a table entry (wire protocol,
 * default base URL, whether a key is needed, request quirks): a new compatible vendor is a new
 * row, not a new code path. A provider not in the table speaks OpenAI Chat Completions at the
 * base URL it is given.
 */

export type WireProtocol = "openai-chat" | "openai-responses" | "anthropic-messages";

export interface ProviderProfile {
  wire: WireProtocol;
  /** Used when neither the options, the project config nor `<PROVIDER>_BASE_URL` give one. */
  baseUrl?: string;
  /** Whether requests need an API key; local servers usually take none. */
  keyRequired: boolean;
  maxTokensField?: MaxTokensField;
  reasoningEffort?: ReasoningEffortMap;
  /** Whether the provider's models read images, unless the model entry says. */
  vision?: boolean;
}

const compatible = (baseUrl: string | undefined, keyRequired: boolean): ProviderProfile => ({
  wire: "openai-chat",
  baseUrl,
  keyRequired,
  maxTokensField: "max_tokens",
  reasoningEffort: COMPATIBLE_REASONING_EFFORT,
});

export const PROVIDER_PROFILES: Readonly<Record<string, ProviderProfile>> = {
  openai: {
    wire: "openai-chat",
    baseUrl: "https://api.openai.com/v1",
    keyRequired: true,
    maxTokensField: "max_completion_tokens",
    reasoningEffort: OPENAI_REASONING_EFFORT,
    vision: true,
  },
  "openai-responses": {
    wire: "openai-responses",
    baseUrl: "https://api.openai.com/v1",
    keyRequired: true,
    reasoningEffort: OPENAI_REASONING_EFFORT,
    vision: true,
  },
  anthropic: {
    wire: "anthropic-messages",
    baseUrl: "https://api.anthropic.com",
    keyRequired: true,
    vision: true,
  },
  deepseek: compatible("https://api.deepseek.com/v1", true),
  openrouter: compatible("https://openrouter.ai/api/v1", true),
  ollama: compatible("http://127.0.0.1:11434/v1", false),
  vllm: compatible("http://127.0.0.1:8000/v1", false),
  llamacpp: compatible("http://127.0.0.1:8080/v1", false),
};

/** The profile of a model entry's `api` when its provider is not in the table. */
const API_PROFILES: Readonly<Record<ProviderApi, ProviderProfile>> = {
  openai: { ...PROVIDER_PROFILES.openai!, baseUrl: undefined },
  "openai-responses": { ...PROVIDER_PROFILES["openai-responses"]!, baseUrl: undefined },
  anthropic: { ...PROVIDER_PROFILES.anthropic!, baseUrl: undefined },
  "openai-compatible": compatible(undefined, true),
};

/**
 * Sent as the key to servers that need none: the SDKs refuse to start without one, and an
 * unknown provider on this machine (`localhost`) is taken to be such a server.
 */
export const NO_API_KEY = "no-key";

/**
 * An adapter's own options, all optional (the provider's table row, the project's model entry
 * and the environment fill in what is not given), and where to look them up.
 */
export interface ModelAdapterOptions extends Partial<Omit<ProviderAdapterOptions, "provider" | "modelId">> {
  /** The wire protocol, overriding the provider's (a model entry's `api`). */
  api?: ProviderApi;
  /** Where a model entry supplies the key, base URL, context window and vision. */
  project?: ProjectConfig;
  env?: NodeJS.ProcessEnv;
}

export type ModelAdapterResult = { ok: true; adapter: ModelAdapter } | { ok: false; error: string };

function isLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === "localhost" || host === "[::1]" || host.startsWith("127.");
  } catch {
    return false;
  }
}

function profileOf(provider: string, api: ProviderApi | undefined): ProviderProfile {
  const known = PROVIDER_PROFILES[provider];
  if (api === undefined) return known ?? compatible(undefined, true);
  const forApi = API_PROFILES[api];
  return known && known.wire === forApi.wire ? known : forApi;
}

/** `provider/model-id` or `replay:FILE` (or the parsed reference) -> an adapter, or why not. */
export function createModelAdapter(
  ref: ModelRef | string,
  options: ModelAdapterOptions = {},
): ModelAdapterResult {
  const parsed = typeof ref === "string" ? parseModelRef(ref) : ref;
  if (!parsed) return { ok: false, error: `model "${ref}" is neither "provider/model-id" nor "replay:FILE"` };
  const { provider, modelId } = parsed;
  const entry: ModelEntry | undefined = options.project
    ? findModel(options.project, provider, modelId)
    : undefined;
  const contextWindow = options.contextWindow ?? entry?.context_window;

  if (provider === REPLAY_PROVIDER) {
    try {
      return {
        ok: true,
        adapter: createReplayModel({ file: modelId, toolCallIds: options.toolCallIds, contextWindow }),
      };
    } catch (error) {
      return { ok: false, error: error instanceof CassetteError ? error.message : String(error) };
    }
  }

  const profile = profileOf(provider, options.api ?? entry?.api);
  const credentials = resolveCredentials(provider, entry, options.env ?? process.env);
  const prefix = providerEnvPrefix(provider);
  const baseUrl = (options.baseUrl ?? credentials.baseUrl ?? profile.baseUrl)?.replace(/\/+$/, "");
  if (!baseUrl) {
    return {
      ok: false,
      error: `no base URL for provider "${provider}": set ${prefix}_BASE_URL (or base_url in the project config)`,
    };
  }
  let apiKey = options.apiKey ?? credentials.apiKey;
  const keyRequired = PROVIDER_PROFILES[provider] ? profile.keyRequired : !isLoopback(baseUrl);
  if (!apiKey && keyRequired) {
    const variable = entry?.api_key_env ?? `${prefix}_API_KEY`;
    return {
      ok: false,
      error: `no API key for provider "${provider}": set ${variable} (or api_key in the project config)`,
    };
  }
  apiKey ||= NO_API_KEY;

  const common = {
    provider,
    modelId,
    baseUrl,
    apiKey,
    contextWindow,
    vision: options.vision ?? entry?.vision ?? profile.vision ?? false,
    timeoutMs: options.timeoutMs,
    idleTimeoutMs: options.idleTimeoutMs,
    toolCallIds: options.toolCallIds,
    headers: options.headers,
  };
  switch (profile.wire) {
    case "anthropic-messages":
      // The SDK appends /v1/messages to the origin; forgive a base URL that already ends in /v1.
      return {
        ok: true,
        adapter: createAnthropicMessagesModel({ ...common, baseUrl: baseUrl.replace(/\/v1$/, "") }),
      };
    case "openai-responses":
      return {
        ok: true,
        adapter: createOpenAIResponsesModel({ ...common, reasoningEffort: profile.reasoningEffort }),
      };
    case "openai-chat":
      return {
        ok: true,
        adapter: createOpenAIChatModel({
          ...common,
          maxTokensField: profile.maxTokensField,
          reasoningEffort: profile.reasoningEffort,
        }),
      };
  }
}
