import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { outcomeOfSdkError } from "../../src/models/outcomes.js";
import { SdkLoadError } from "../../src/models/sdk-client.js";

// outcomes.ts classifies SDK errors without importing either SDK (they load on the first
// request), so every error class both SDKs throw is checked here, built the way the SDK builds it.

const SDKS = [
  {
    name: "openai",
    errors: OpenAI,
    /** OpenAI keeps the body's `error` object on the exception. */
    body: (message: string) => ({ error: { message } }),
  },
  {
    name: "@anthropic-ai/sdk",
    errors: Anthropic,
    /** Anthropic keeps the whole body. */
    body: (message: string) => ({ type: "error", error: { type: "api_error", message } }),
  },
] as const;

describe.each(SDKS)("errors of $name", ({ errors, body }) => {
  it("401 and 403 need a new key (auth), with the provider's message", () => {
    for (const status of [401, 403]) {
      const error = errors.APIError.generate(status, body("invalid x-api-key"), undefined, new Headers());
      expect(outcomeOfSdkError(error)).toEqual({
        status: "auth",
        errorMessage: `HTTP ${status}: invalid x-api-key`,
        httpStatus: status,
      });
    }
  });

  it("429 and 5xx are transient and carry the server's retry-after", () => {
    const limited = errors.APIError.generate(
      429,
      body("slow down"),
      undefined,
      new Headers({ "retry-after": "3" }),
    );
    expect(outcomeOfSdkError(limited)).toEqual({
      status: "failed",
      errorMessage: "HTTP 429: slow down",
      retryAfterMs: 3000,
      httpStatus: 429,
    });
    const overloaded = errors.APIError.generate(529, body("Overloaded"), undefined, new Headers());
    expect(outcomeOfSdkError(overloaded)).toMatchObject({ status: "failed", httpStatus: 529 });
    expect(outcomeOfSdkError(overloaded).permanent).toBeUndefined();
  });

  it("another 4xx is permanent, and 408 is a timeout", () => {
    const bad = errors.APIError.generate(400, body("max_tokens too large"), undefined, new Headers());
    expect(outcomeOfSdkError(bad)).toMatchObject({
      status: "failed",
      permanent: true,
      errorMessage: "HTTP 400: max_tokens too large",
    });
    const slow = errors.APIError.generate(408, body("request timeout"), undefined, new Headers());
    expect(outcomeOfSdkError(slow)).toMatchObject({ status: "timeout", httpStatus: 408 });
  });

  it("an error event inside the stream (no status) is a transient failure", () => {
    const error = new errors.APIError(undefined, body("upstream overloaded"), undefined, new Headers());
    const result = outcomeOfSdkError(error);
    expect(result.status).toBe("failed");
    expect(result.errorMessage).toMatch(/^the provider reported an error mid-stream: .*upstream overloaded/);
    expect(result.permanent).toBeUndefined();
  });

  it("the user's abort, the header timeout and a refused connection", () => {
    expect(outcomeOfSdkError(new errors.APIUserAbortError())).toEqual({
      status: "aborted",
      errorMessage: "the request was aborted",
    });
    expect(outcomeOfSdkError(new errors.APIConnectionTimeoutError())).toEqual({
      status: "timeout",
      errorMessage: "the provider did not answer in time (Request timed out.)",
    });
    const refused = new errors.APIConnectionError({ cause: new Error("connect ECONNREFUSED 127.0.0.1:9") });
    expect(outcomeOfSdkError(refused)).toEqual({
      status: "failed",
      errorMessage: "connection to the provider failed (Connection error.: connect ECONNREFUSED 127.0.0.1:9)",
    });
    // With the adapter's endpoint: the address, the system error code and what to check.
    const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
    const refusedAt = new errors.APIConnectionError({ cause });
    expect(outcomeOfSdkError(refusedAt, { provider: "local-llm", baseUrl: "http://127.0.0.1:9/v1" })).toEqual(
      {
        status: "failed",
        errorMessage:
          "cannot reach local-llm at http://127.0.0.1:9/v1 (ECONNREFUSED): check that it is running and the model's base_url in the project config, or LOCAL_LLM_BASE_URL (Connection error.: connect ECONNREFUSED 127.0.0.1:9)",
      },
    );
  });
});

describe("errors that are not the SDKs' own", () => {
  it("a status with headers is an HTTP error even when its class has another name (a bundler renamed it)", () => {
    class APIError2 extends Error {
      status = 503;
      headers = new Headers({ "retry-after-ms": "250" });
    }
    expect(outcomeOfSdkError(new APIError2("busy"))).toEqual({
      status: "failed",
      errorMessage: "HTTP 503: busy",
      retryAfterMs: 250,
      httpStatus: 503,
    });
  });

  it("a broken chunk is malformed; a body cut short is a dropped connection; anything else is a stream that broke off", () => {
    expect(outcomeOfSdkError(new SyntaxError("Unexpected token } in JSON")).status).toBe("malformed");
    expect(outcomeOfSdkError(new TypeError("terminated"))).toEqual({
      status: "failed",
      errorMessage:
        "the connection to the provider dropped before the reply was complete (terminated): the server answered, then the connection closed",
    });
    expect(outcomeOfSdkError("socket hang up")).toEqual({
      status: "failed",
      errorMessage: "the stream broke off: socket hang up",
    });
  });

  it("an SDK that cannot be imported is a permanent failure (retrying cannot install it)", () => {
    const error = new SdkLoadError("openai", new Error("Cannot find package 'openai'"));
    expect(outcomeOfSdkError(error)).toEqual({
      status: "failed",
      permanent: true,
      errorMessage:
        "cannot load the provider SDK \"openai\" (Cannot find package 'openai'); reinstall Penguin to restore it",
    });
  });
});
