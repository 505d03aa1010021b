import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type FakeLlm, startFakeLlm } from "../src/index.js";
import { ALL_DRIVERS } from "./drivers.js";

/** The SDK request timeout of the stall tests; the stalled server never answers, so any value fails. */
const CLIENT_TIMEOUT_MS = 300;
/** How long a stalled stream is watched for further deltas before the client gives up. */
const STALL_WATCH_MS = 200;

let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm({ apiKey: "sk-right" });
});
afterEach(() => llm.close());

/** The error a promise rejects with (fails the test if it resolves). */
async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the request to fail, but it succeeded");
}

describe.each(ALL_DRIVERS)("%s failures", (_name, makeDriver) => {
  it("answers a wrong API key with 401 in the provider's error shape, consuming no turn", async () => {
    llm.setScript([{ text: "unused" }]);
    const sdk = makeDriver(llm, "sk-wrong");
    const error = await rejectionOf(sdk.complete());
    expect(error).toBeInstanceOf(sdk.AuthenticationError);
    expect((error as unknown as { status: number }).status).toBe(401);
    expect(error.message).toContain("invalid API key");
    expect(llm.requests[0]).toMatchObject({ outcome: "unauthorized", turnIndex: null });
    expect(await makeDriver(llm, "sk-right").complete()).toBe("unused");
  });

  it("answers a scripted 429 with the retry-after header", async () => {
    llm.setScript([{ error: { status: 429, message: "slow down", retry_after: 7 } }]);
    const sdk = makeDriver(llm, "sk-right");
    const error = await rejectionOf(sdk.stream([]));
    expect(error).toBeInstanceOf(sdk.RateLimitError);
    const { status, headers } = error as unknown as { status: number; headers: Headers };
    expect(status).toBe(429);
    expect(headers.get("retry-after")).toBe("7");
    expect(error.message).toContain("slow down");
  });

  it("answers a scripted 500 as the SDK's InternalServerError", async () => {
    llm.setScript([{ error: { status: 500 } }, { text: "recovered" }]);
    const sdk = makeDriver(llm, "sk-right");
    const error = await rejectionOf(sdk.complete());
    expect(error).toBeInstanceOf(sdk.InternalServerError);
    expect(error.message).toContain("The server had an error");
    expect(await sdk.complete()).toBe("recovered");
  });

  it("stalls before the response head so the SDK's request timeout fires", async () => {
    llm.setScript([{ text: "never sent", stall: { after_chunks: 0 } }]);
    const sdk = makeDriver(llm, "sk-right");
    const error = await rejectionOf(sdk.stream([], { timeout: CLIENT_TIMEOUT_MS }));
    expect(error).toBeInstanceOf(sdk.APIConnectionTimeoutError);
    const [request] = await llm.waitForRequests(1);
    expect(request).toMatchObject({ outcome: "stalled", turnIndex: 0 });
  });

  it("stalls a non-streamed answer until the SDK times out", async () => {
    llm.setScript([{ text: "never sent", stall: {} }]);
    const sdk = makeDriver(llm, "sk-right");
    expect(await rejectionOf(sdk.complete({ timeout: CLIENT_TIMEOUT_MS }))).toBeInstanceOf(
      sdk.APIConnectionTimeoutError,
    );
  });

  it("stalls mid-stream after N deltas, keeping the connection open until the client gives up", async () => {
    llm.setScript([{ text: "aaaabbbbccccdddd", chunk_size: 4, stall: { after_chunks: 2 } }]);
    const sdk = makeDriver(llm, "sk-right");
    const deltas: string[] = [];
    const controller = new AbortController();
    const streaming = rejectionOf(sdk.stream(deltas, { signal: controller.signal }));
    await vi.waitFor(() => expect(deltas).toHaveLength(2), { timeout: 10_000 });
    // Nothing more arrives while the connection stays open; then the client gives up.
    await new Promise((resolve) => setTimeout(resolve, STALL_WATCH_MS));
    controller.abort();
    const error = await streaming;
    expect(error).toBeInstanceOf(sdk.APIUserAbortError);
    expect(deltas).toEqual(["aaaa", "bbbb"]);
  });

  it("cuts the connection mid-event after N deltas, and the SDK stream errors", async () => {
    llm.setScript([{ text: "aaaabbbbccccdddd", chunk_size: 4, cut: { after_chunks: 3 } }, { text: "next" }]);
    const sdk = makeDriver(llm, "sk-right");
    const deltas: string[] = [];
    const error = await rejectionOf(sdk.stream(deltas));
    expect(error.message).toMatch(/terminated|closed|socket/i);
    expect(deltas).toEqual(["aaaa", "bbbb", "cccc"]);
    // The server itself is unharmed: the next turn is answered.
    expect(await sdk.complete()).toBe("next");
  });

  it("cuts the connection before any response when after_chunks is 0", async () => {
    llm.setScript([{ text: "x", cut: { after_chunks: 0 } }]);
    const sdk = makeDriver(llm, "sk-right");
    expect(await rejectionOf(sdk.stream([]))).toBeInstanceOf(sdk.APIConnectionError);
  });

  it("sends broken JSON after N deltas, and the SDK fails to parse it", async () => {
    llm.setScript([{ text: "aaaabbbb", chunk_size: 4, malformed: { after_chunks: 1 } }]);
    const sdk = makeDriver(llm, "sk-right");
    const deltas: string[] = [];
    const error = await rejectionOf(sdk.stream(deltas));
    expect(error.message).toMatch(/JSON/);
    expect(deltas).toEqual(["aaaa"]);
  });

  it("fails a non-streamed answer whose body is broken JSON", async () => {
    llm.setScript([{ text: "hello", malformed: {} }]);
    const sdk = makeDriver(llm, "sk-right");
    expect((await rejectionOf(sdk.complete())).message).toMatch(/JSON/);
  });

  it("answers 500 with a clear message once the script is exhausted, and records it", async () => {
    llm.setScript([{ text: "only turn" }]);
    const sdk = makeDriver(llm, "sk-right");
    expect(await sdk.complete()).toBe("only turn");
    const error = await rejectionOf(sdk.stream([]));
    expect(error).toBeInstanceOf(sdk.InternalServerError);
    expect(error.message).toContain("script exhausted");
    expect(llm.requests.map((r) => [r.outcome, r.turnIndex])).toEqual([
      ["answered", 0],
      ["script_exhausted", null],
    ]);
    expect(llm.turnsConsumed).toBe(1);
  });
});
