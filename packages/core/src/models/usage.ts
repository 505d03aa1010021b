import { ESTIMATED_CHARS_PER_TOKEN, estimateTokensOfText, type TokenCounts } from "@penguin/protocol";
import type { ModelRequest } from "./types.js";

// The estimate lives in the protocol, so a browser front end sizes text the same way.
export { ESTIMATED_CHARS_PER_TOKEN, estimateTokensOfText };

/**
 * What one image costs in the context, whatever its bytes: providers scale an image down and
 * bill it by its pixels, not its base64 text (Anthropic: width x height / 750, at most about
 * 1,600 tokens once resized to ~1.15 megapixels; OpenAI: 85 + 170 per 512-pixel tile, about
 * 1,100 for a large image). Counting its base64 at four characters a token would make one 1 MB
 * PNG look like 333,000 tokens; the upper bound keeps the estimate on the safe side.
 */
export const ESTIMATED_IMAGE_TOKENS = 1_600;

type EstimatedMessage = ModelRequest["messages"][number];

/** Estimated input tokens of a request: system prompt, every message and the tool specs. */
export function estimateRequestTokens(
  request: Pick<ModelRequest, "systemPrompt" | "messages" | "tools">,
): number {
  let chars = request.systemPrompt.length;
  let images = 0;
  for (const message of request.messages) {
    const counted = measuredPayload(message);
    chars += counted.chars;
    images += counted.images;
  }
  // The length of `JSON.stringify(request.tools)`: the brackets, each spec, the commas between.
  if (request.tools.length > 0) {
    chars += 2 + request.tools.length - 1;
    for (const tool of request.tools) chars += jsonLength(tool);
  }
  return Math.ceil(chars / ESTIMATED_CHARS_PER_TOKEN) + images * ESTIMATED_IMAGE_TOKENS;
}

/**
 * The JSON length of each payload and spec already measured. The estimate is made before every
 * request, over the whole context: measuring only what is new keeps a round's cost from growing
 * with the conversation. Messages and specs are not changed once made (a changed context is made
 * of new objects), so an object's length holds as long as the object lives.
 */
const measured = new WeakMap<object, { chars: number; images: number }>();

function measuredPayload(message: EstimatedMessage): { chars: number; images: number } {
  let counted = measured.get(message.payload);
  if (counted === undefined) {
    const { payload, images } = textAndImages(message);
    counted = { chars: JSON.stringify(payload).length, images };
    measured.set(message.payload, counted);
  }
  return counted;
}

function jsonLength(value: object): number {
  let counted = measured.get(value);
  if (counted === undefined) {
    counted = { chars: JSON.stringify(value).length, images: 0 };
    measured.set(value, counted);
  }
  return counted.chars;
}

/** A message's payload with its image data left out, and how many images it carries. */
function textAndImages(message: EstimatedMessage): { payload: unknown; images: number } {
  const payload = message.payload;
  switch (payload.type) {
    case "image_url":
      return { payload: { ...payload, image_url: "" }, images: 1 };
    case "inline_data":
      return { payload: { ...payload, data: "" }, images: 1 };
    case "tool_call_output":
      return payload.images?.length
        ? { payload: { ...payload, images: [] }, images: payload.images.length }
        : { payload, images: 0 };
    default:
      return { payload, images: 0 };
  }
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

/**
 * The OpenAI APIs' usage, whose input count includes its cached part (`prompt_tokens` on Chat
 * Completions, `input_tokens` on Responses) and which write no cache they report.
 */
export function openAIUsage(input: number, cachedInput: number, output: number): TokenCounts {
  return tokenCounts({
    uncached: Math.max(0, input - cachedInput),
    cacheRead: cachedInput,
    cacheWrite: 0,
    output,
  });
}
