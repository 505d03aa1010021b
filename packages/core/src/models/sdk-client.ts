import type Anthropic from "@anthropic-ai/sdk";
import { errorMessage } from "@penguin/protocol";
import type OpenAI from "openai";
import type { AdapterConnection } from "./adapter-setup.js";

/**
 * The provider SDKs are imported the first time an adapter sends a request, not when Penguin
 * starts: each takes a few hundred milliseconds to load, and a session uses one of them at most
 * (a replay session none). "Aim for start-up that a user does not notice (lazy-load what a
 * command does not need)."
 */

/** Default time to wait for a provider's response headers (system_config `model.timeoutMs`). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

/**
 * Settings for every official SDK client: retries belong to the engine alone (`maxRetries: 0`),
 * and stream failures are reported as outcomes, so the SDK must not log them as well.
 */
function sdkClientOptions(options: AdapterConnection) {
  return {
    apiKey: options.apiKey,
    baseURL: options.baseUrl,
    maxRetries: 0,
    timeout: options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    defaultHeaders: options.headers,
    logLevel: "off" as const,
  };
}

/** An SDK that could not be imported (a broken or partial install): the request cannot be sent. */
export class SdkLoadError extends Error {
  constructor(packageName: string, cause: unknown) {
    const reason = errorMessage(cause);
    super(`cannot load the provider SDK "${packageName}" (${reason}); reinstall Penguin to restore it`, {
      cause,
    });
    this.name = "SdkLoadError";
  }
}

async function importSdk<T>(packageName: string, load: () => Promise<{ default: T }>): Promise<T> {
  try {
    return (await load()).default;
  } catch (error) {
    throw new SdkLoadError(packageName, error);
  }
}

/**
 * The SDKs send their requests through Penguin's fetch over node:http(s) (http/node-http-fetch.ts),
 * not Node's own: loaded with the SDK, on the first request.
 */
async function providerFetch() {
  return (await import("./http/node-http-fetch.js")).nodeHttpFetch;
}

/**
 * One client per adapter, created on its first request. A failed import is not remembered, so a
 * later request tries again.
 */
function lazyClient<T>(create: () => Promise<T>): () => Promise<T> {
  let client: Promise<T> | undefined;
  return () => {
    client ??= create().catch((error: unknown) => {
      client = undefined;
      throw error;
    });
    return client;
  };
}

export function lazyOpenAIClient(connection: AdapterConnection): () => Promise<OpenAI> {
  const settings = sdkClientOptions(connection);
  return lazyClient(async () => {
    const [OpenAISdk, fetch] = await Promise.all([
      importSdk("openai", () => import("openai")),
      providerFetch(),
    ]);
    return new OpenAISdk({ ...settings, fetch });
  });
}

export function lazyAnthropicClient(connection: AdapterConnection): () => Promise<Anthropic> {
  const settings = sdkClientOptions(connection);
  return lazyClient(async () => {
    const [AnthropicSdk, fetch] = await Promise.all([
      importSdk("@anthropic-ai/sdk", () => import("@anthropic-ai/sdk")),
      providerFetch(),
    ]);
    return new AnthropicSdk({ ...settings, fetch });
  });
}
