import type { TokenCounts } from "@penguin/protocol";
import type { ModelRequest } from "./types.js";

/** Rough size of a token when a provider reports no usage: about four characters of English. */
export const ESTIMATED_CHARS_PER_TOKEN = 4;

export function estimateTokensOfText(text: string): number {
  return Math.ceil(text.length / ESTIMATED_CHARS_PER_TOKEN);
}

/** Estimated input tokens of a request: system prompt, every message and the tool specs. */
export function estimateRequestTokens(
  request: Pick<ModelRequest, "systemPrompt" | "messages" | "tools">,
): number {
  let chars = request.systemPrompt.length;
  for (const message of request.messages) chars += JSON.stringify(message.payload).length;
  if (request.tools.length > 0) chars += JSON.stringify(request.tools).length;
  return Math.ceil(chars / ESTIMATED_CHARS_PER_TOKEN);
}

/** Input split the way Anthropic reports it: `uncached` is neither read from nor written to the cache. */
export interface InputTokenParts {
  uncached: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
}

/** "`total` counts every input token (cached or not) plus the output" (protocol TokenCounts). */
export function tokenCounts(parts: InputTokenParts): TokenCounts {
  return {
    cache_read: parts.cacheRead,
    cache_write: parts.cacheWrite,
    output: parts.output,
    total: parts.uncached + parts.cacheRead + parts.cacheWrite + parts.output,
  };
}
