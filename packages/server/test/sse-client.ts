import { createParser, type EventSourceMessage } from "eventsource-parser";
import { assertDocumentedResponse } from "./openapi-check.js";

/**
 * A test reader of a `text/event-stream` response over real HTTP: `fetch` plus the
 * eventsource-parser library (no hand-written SSE parsing). Collects events and comments and
 * lets a test wait for the next ones.
 */
export class SseClient {
  readonly events: EventSourceMessage[] = [];
  readonly comments: string[] = [];
  status = 0;
  ended = false;
  readonly #abort = new AbortController();
  #waiters: (() => void)[] = [];
  #done: Promise<void> = Promise.resolve();

  static async connect(
    url: string,
    options: string | { lastEventId?: string; cookie?: string; bearer?: string } = {},
  ): Promise<SseClient> {
    const { lastEventId, cookie, bearer } =
      typeof options === "string" ? { lastEventId: options, cookie: undefined, bearer: undefined } : options;
    const client = new SseClient();
    const response = await fetch(url, {
      headers: {
        accept: "text/event-stream",
        ...(lastEventId ? { "last-event-id": lastEventId } : {}),
        ...(cookie ? { cookie: `penguin_session=${cookie}` } : {}),
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      },
      signal: client.#abort.signal,
    });
    client.status = response.status;
    await assertDocumentedResponse("GET", url, response);
    client.#done = client.#read(response);
    return client;
  }

  async #read(response: Response): Promise<void> {
    const parser = createParser({
      onEvent: (event) => {
        this.events.push(event);
        this.#notify();
      },
      onComment: (comment) => {
        this.comments.push(comment);
        this.#notify();
      },
    });
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        parser.feed(decoder.decode(chunk, { stream: true }));
      }
    } catch {
      // Aborted by close().
    } finally {
      this.ended = true;
      this.#notify();
    }
  }

  #notify(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves once `condition` holds (re-checked after every event, comment or the end). */
  async until(condition: (client: SseClient) => boolean): Promise<void> {
    while (!condition(this)) {
      if (this.ended) throw new Error(`stream ended first; got ${JSON.stringify(this.events)}`);
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Waits until `count` events have arrived in total. */
  async waitForEvents(count: number): Promise<EventSourceMessage[]> {
    await this.until((client) => client.events.length >= count);
    return this.events;
  }

  lastEventId(): string | undefined {
    for (let i = this.events.length - 1; i >= 0; i--) {
      if (this.events[i].id !== undefined) return this.events[i].id;
    }
    return undefined;
  }

  async close(): Promise<void> {
    this.#abort.abort();
    await this.#done;
  }

  /** Resolves when the server ends the stream. */
  async waitForEnd(): Promise<void> {
    await this.#done;
  }
}
