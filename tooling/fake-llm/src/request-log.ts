import type { ModelProtocolName } from "./protocols/protocol.js";

/** How the fake server answered a request. */
export type RequestOutcome =
  | "answered"
  | "scripted_error"
  | "stalled"
  | "cut"
  | "malformed"
  | "script_exhausted"
  | "unauthorized"
  | "invalid_json"
  | "not_found";

/** One request as the server received it, so a test can assert what a client sent. */
export interface RecordedRequest {
  /** Position among all requests this server received, from 0. */
  index: number;
  method: string;
  /** Path without the query string, e.g. `/v1/messages`. */
  path: string;
  /** The query string without `?`, or "". */
  query: string;
  /** Header names lower-cased; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The parsed JSON body; undefined when there was none or it was not JSON. */
  body: unknown;
  rawBody: string;
  /** The wire protocol, `models` for the model list, null for an unknown path. */
  protocol: ModelProtocolName | "models" | null;
  /** Whether the body asked for a streamed answer. */
  stream: boolean;
  /** The script turn this request consumed; null when it consumed none. */
  turnIndex: number | null;
  outcome: RequestOutcome;
}

/** Default wait of `waitForRequests`: long enough for a loaded CI machine, short enough to fail. */
export const DEFAULT_WAIT_FOR_REQUESTS_MS = 10_000;

/** The requests of one server, in arrival order, with a way to wait for more. */
export class RequestLog {
  readonly entries: RecordedRequest[] = [];
  #waiters: { count: number; resolve: () => void }[] = [];

  add(request: RecordedRequest): void {
    this.entries.push(request);
    this.#waiters = this.#waiters.filter((waiter) => {
      if (this.entries.length < waiter.count) return true;
      waiter.resolve();
      return false;
    });
  }

  async waitFor(count: number, timeoutMs = DEFAULT_WAIT_FOR_REQUESTS_MS): Promise<RecordedRequest[]> {
    if (this.entries.length < count) {
      await new Promise<void>((resolve, reject) => {
        const waiter = {
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
        const timer = setTimeout(() => {
          this.#waiters = this.#waiters.filter((other) => other !== waiter);
          reject(
            new Error(
              `fake-llm: waited ${timeoutMs} ms for ${count} request(s), received ${this.entries.length}`,
            ),
          );
        }, timeoutMs);
        this.#waiters.push(waiter);
      });
    }
    return this.entries.slice(0, count);
  }
}
