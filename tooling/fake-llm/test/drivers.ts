import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { FakeLlm } from "../src/index.js";

/**
 * One official SDK client per protocol, behind the same small surface, so a failure test can
 * run against all three protocols. `stream` pushes text deltas into `deltas` as they arrive and
 * resolves with the final text.
 */
export interface SdkDriver {
  protocol: "openai-chat" | "openai-responses" | "anthropic-messages";
  stream(deltas: string[], options?: { timeout?: number; signal?: AbortSignal }): Promise<string>;
  complete(options?: { timeout?: number }): Promise<string>;
  /** The SDK's base error class of an HTTP status answer. */
  APIError: new (
    ...args: never[]
  ) => Error;
  AuthenticationError: new (...args: never[]) => Error;
  RateLimitError: new (...args: never[]) => Error;
  InternalServerError: new (...args: never[]) => Error;
  APIConnectionError: new (...args: never[]) => Error;
  APIConnectionTimeoutError: new (...args: never[]) => Error;
  APIUserAbortError: new (...args: never[]) => Error;
}

export type DriverFactory = (llm: FakeLlm, apiKey?: string) => SdkDriver;

const openAiErrors = {
  APIError: OpenAI.APIError,
  AuthenticationError: OpenAI.AuthenticationError,
  RateLimitError: OpenAI.RateLimitError,
  InternalServerError: OpenAI.InternalServerError,
  APIConnectionError: OpenAI.APIConnectionError,
  APIConnectionTimeoutError: OpenAI.APIConnectionTimeoutError,
  APIUserAbortError: OpenAI.APIUserAbortError,
};

function openAiClient(llm: FakeLlm, apiKey: string): OpenAI {
  // logLevel off: the SDKs log unparsable chunks to stderr, which the malformed tests provoke on purpose.
  return new OpenAI({ baseURL: `${llm.url}/v1`, apiKey, maxRetries: 0, logLevel: "off" });
}

export const chatDriver: DriverFactory = (llm, apiKey = "sk-test") => {
  const client = openAiClient(llm, apiKey);
  const body = { model: "m", messages: [{ role: "user" as const, content: "q" }] };
  return {
    protocol: "openai-chat",
    ...openAiErrors,
    async stream(deltas, options) {
      const stream = client.chat.completions.stream(body, options);
      stream.on("content", (delta) => deltas.push(delta));
      const completion = await stream.finalChatCompletion();
      return completion.choices[0]?.message.content ?? "";
    },
    async complete(options) {
      const completion = await client.chat.completions.create(body, options);
      return completion.choices[0]?.message.content ?? "";
    },
  };
};

export const responsesDriver: DriverFactory = (llm, apiKey = "sk-test") => {
  const client = openAiClient(llm, apiKey);
  const body = { model: "m", input: "q" };
  return {
    protocol: "openai-responses",
    ...openAiErrors,
    async stream(deltas, options) {
      const stream = client.responses.stream(body, options);
      stream.on("response.output_text.delta", (event) => deltas.push(event.delta));
      return (await stream.finalResponse()).output_text;
    },
    async complete(options) {
      return (await client.responses.create(body, options)).output_text;
    },
  };
};

export const anthropicDriver: DriverFactory = (llm, apiKey = "sk-test") => {
  const client = new Anthropic({ baseURL: llm.url, apiKey, maxRetries: 0, logLevel: "off" });
  const body = { model: "m", max_tokens: 100, messages: [{ role: "user" as const, content: "q" }] };
  const textOf = (message: Anthropic.Message) =>
    message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
  return {
    protocol: "anthropic-messages",
    APIError: Anthropic.APIError,
    AuthenticationError: Anthropic.AuthenticationError,
    RateLimitError: Anthropic.RateLimitError,
    InternalServerError: Anthropic.InternalServerError,
    APIConnectionError: Anthropic.APIConnectionError,
    APIConnectionTimeoutError: Anthropic.APIConnectionTimeoutError,
    APIUserAbortError: Anthropic.APIUserAbortError,
    async stream(deltas, options) {
      const stream = client.messages.stream(body, options);
      stream.on("text", (delta) => deltas.push(delta));
      return textOf(await stream.finalMessage());
    },
    async complete(options) {
      return textOf(await client.messages.create(body, options));
    },
  };
};

export const ALL_DRIVERS = [
  ["OpenAI Chat Completions", chatDriver],
  ["OpenAI Responses", responsesDriver],
  ["Anthropic Messages", anthropicDriver],
] as const;
