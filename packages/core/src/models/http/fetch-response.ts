import { Blob } from "node:buffer";
import type { ReadableStream } from "node:stream/web";
import { FetchHeaders } from "./fetch-headers.js";

/**
 * A response of the provider fetch (node-http-fetch.ts): the `Response` interface the provider
 * SDKs read (status, headers, the body as a web stream, `text()`, `json()`), with the body read
 * once, as fetch reads it. It is not undici's `Response`, whose first use costs a start tens of
 * milliseconds, and whose body machinery costs each streamed reply CPU.
 */
export interface FetchResponseInit {
  status: number;
  statusText: string;
  headers: FetchHeaders;
  /** The URL the response came from, after redirects. */
  url: string;
  redirected: boolean;
  /** Null for a response that has no body (HEAD, 204, 205, 304). */
  body: ReadableStream<Uint8Array> | null;
}

/** Fetch: an "ok status" is any status in the range 200 to 299. */
const OK_STATUSES = { from: 200, to: 299 };

export class FetchResponse implements Response {
  readonly status: number;
  readonly statusText: string;
  readonly headers: FetchHeaders;
  readonly url: string;
  readonly redirected: boolean;
  readonly type = "basic" as const;
  #body: ReadableStream<Uint8Array> | null;
  /** Set once a method has started reading the body (fetch's "disturbed"). */
  #consumed = false;

  constructor(init: FetchResponseInit) {
    this.status = init.status;
    this.statusText = init.statusText;
    this.headers = init.headers;
    this.url = init.url;
    this.redirected = init.redirected;
    this.#body = init.body;
  }

  get ok(): boolean {
    return this.status >= OK_STATUSES.from && this.status <= OK_STATUSES.to;
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.#body;
  }

  get bodyUsed(): boolean {
    return this.#consumed || (this.#body?.locked ?? false);
  }

  async bytes(): Promise<Uint8Array> {
    if (this.bodyUsed) throw new TypeError("the response body has already been read");
    this.#consumed = true;
    const body = this.#body;
    if (!body) return new Uint8Array(0);
    const chunks: Uint8Array[] = [];
    for await (const chunk of body) chunks.push(chunk);
    return Buffer.concat(chunks);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    // A copy: `bytes` may view a larger (pooled) buffer.
    return new Uint8Array(bytes).buffer;
  }

  async text(): Promise<string> {
    return Buffer.from(await this.bytes()).toString("utf8");
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.bytes()], { type: this.headers.get("content-type") ?? "" });
  }

  /** Provider replies are JSON or event streams; a multipart body is not something they send. */
  async formData(): Promise<FormData> {
    throw new TypeError("the provider fetch does not decode form data");
  }

  clone(): FetchResponse {
    if (this.bodyUsed) throw new TypeError("cannot clone a response whose body has been read");
    let copy: ReadableStream<Uint8Array> | null = null;
    if (this.#body) [this.#body, copy] = this.#body.tee();
    return new FetchResponse({
      status: this.status,
      statusText: this.statusText,
      headers: new FetchHeaders(this.headers),
      url: this.url,
      redirected: this.redirected,
      body: copy,
    });
  }
}
