import { type Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import type { Agent as HttpsAgent } from "node:https";
import { pipeline, Readable } from "node:stream";
import { abortReason, bodyStreamOf, decoded, type WireBody, wireBodyOf } from "./fetch-bodies.js";
import { FetchHeaders } from "./fetch-headers.js";
import { FetchResponse } from "./fetch-response.js";

/**
 * The `fetch` Penguin hands the provider SDKs (their `fetch` client option): one HTTP exchange
 * over node:http(s), with fetch's semantics for what the SDKs use (headers, redirects, decoded
 * bodies, the abort signal, a body read as a web stream).
 *
 * Why not Node's own fetch (undici): it is the largest cost of a session's first request and a
 * share of every later one. Its first use compiles undici's fetch machinery (tens of
 * milliseconds before the first request on a 2-core machine) and its HTTP parser's WebAssembly,
 * and each streamed reply passes through more JavaScript per chunk than node:http's native
 * parser needs (docs/benchmarks.md, section 11).
 *
 * What differs from Node's fetch, on purpose: a `Request` object is not accepted (the SDKs pass
 * a URL and an init), and no form data is sent or decoded (provider requests are JSON).
 */
export type ProviderFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Fetch: "If request's redirect count is 20, then return a network error." */
export const MAX_REDIRECTS = 20;

/**
 * How long a new connection may take to open before the server counts as unreachable: Node's
 * fetch gave up after 10 s too (undici's connect timeout), well before the request timeout.
 */
export const CONNECT_TIMEOUT_MS = 10_000;

/** The content codings this fetch decodes, offered as Node's fetch offers them. */
const ACCEPT_ENCODING = "gzip, deflate, br";

/** Fetch: a "null body status" has no body, whatever the server sent. */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** Fetch: a "redirect status". */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Fetch: headers of a request body, removed when a redirect turns the request into a GET. */
const REQUEST_BODY_HEADERS = [
  "content-encoding",
  "content-language",
  "content-length",
  "content-location",
  "content-type",
];

/** Fetch: credentials removed when a redirect leaves the request's origin. */
const CROSS_ORIGIN_STRIPPED_HEADERS = ["authorization", "cookie", "proxy-authorization"];

export interface NodeHttpFetchOptions {
  /** Agents for http: and https: URLs; by default Node's global ones. */
  httpAgent?: HttpAgent;
  httpsAgent?: HttpsAgent;
  connectTimeoutMs?: number;
}

interface Exchange {
  url: URL;
  method: string;
  headers: FetchHeaders;
  body: WireBody;
  signal: AbortSignal | undefined;
}

export function createNodeHttpFetch(options: NodeHttpFetchOptions = {}): ProviderFetch {
  const connectTimeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  // Without an agent of its own a request goes through Node's global agent, which keeps
  // connections alive (Node 19 and later) and unrefs an idle one, so a finished run exits at once.
  const agentFor = (url: URL) => (url.protocol === "https:" ? options.httpsAgent : options.httpAgent);

  return async (input, init = {}) => {
    if (typeof input !== "string" && !(input instanceof URL)) {
      throw new TypeError("the provider fetch takes a URL and an init, not a Request");
    }
    const headers = new FetchHeaders(init.headers);
    const exchange: Exchange = {
      url: new URL(input),
      method: (init.method ?? "GET").toUpperCase(),
      headers,
      body: wireBodyOf(init.body ?? undefined, headers),
      signal: init.signal ?? undefined,
    };
    if (!headers.has("accept")) headers.set("accept", "*/*");
    if (!headers.has("accept-encoding")) headers.set("accept-encoding", ACCEPT_ENCODING);
    for (let redirects = 0; ; redirects++) {
      const message = await send(exchange, agentFor(exchange.url), connectTimeoutMs);
      const location = message.headers.location;
      const status = message.statusCode ?? 0;
      if (!REDIRECT_STATUSES.has(status) || location === undefined || init.redirect === "manual") {
        return responseOf(message, exchange, redirects > 0);
      }
      message.resume();
      if (init.redirect === "error")
        throw networkError(`redirected to ${location}, and redirects are an error here`);
      if (redirects === MAX_REDIRECTS) throw networkError(`more than ${MAX_REDIRECTS} redirects`);
      followRedirect(exchange, status, redirectTarget(location, exchange.url));
    }
  };
}

/** The provider fetch with Node's global agents. */
export const nodeHttpFetch: ProviderFetch = createNodeHttpFetch();

/** Fetch's "network error": a TypeError whose cause says what happened (as Node's fetch gives it). */
function networkError(reason: string | Error): TypeError {
  return new TypeError("fetch failed", { cause: typeof reason === "string" ? new Error(reason) : reason });
}

function redirectTarget(location: string, from: URL): URL {
  try {
    return new URL(location, from);
  } catch {
    throw networkError(`redirected to ${JSON.stringify(location)}, which is not a URL`);
  }
}

/** Fetch's "HTTP-redirect fetch", steps 11 to 13: method, body and credentials for the next hop. */
function followRedirect(exchange: Exchange, status: number, next: URL): void {
  if (exchange.body instanceof Readable && status !== 303) {
    throw networkError("redirected, and a streamed request body cannot be sent again");
  }
  const toGet =
    ((status === 301 || status === 302) && exchange.method === "POST") ||
    (status === 303 && exchange.method !== "GET" && exchange.method !== "HEAD");
  if (toGet) {
    exchange.method = "GET";
    exchange.body = undefined;
    for (const name of REQUEST_BODY_HEADERS) exchange.headers.delete(name);
  }
  if (next.origin !== exchange.url.origin) {
    for (const name of CROSS_ORIGIN_STRIPPED_HEADERS) exchange.headers.delete(name);
  }
  exchange.url = next;
}

/**
 * node:https, and TLS with it, is loaded by the first https: request: a session whose model
 * answers over http: (a local server) never loads it, and one over https: only once it sends.
 */
function requestFunction(url: URL): typeof httpRequest {
  return url.protocol === "https:" ? process.getBuiltinModule("node:https").request : httpRequest;
}

/** Sends one request; resolves with the response's head, its body not yet read. */
function send(
  exchange: Exchange,
  agent: HttpAgent | undefined,
  connectTimeoutMs: number,
): Promise<IncomingMessage> {
  const { url, method, headers, body, signal } = exchange;
  return new Promise((resolve, reject) => {
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      reject(networkError(`the URL scheme "${url.protocol}" is not http: or https:`));
      return;
    }
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const wireHeaders: Record<string, string> = {};
    for (const [name, value] of headers) wireHeaders[name] = value;
    if (Buffer.isBuffer(body)) wireHeaders["content-length"] = String(body.length);
    const request = requestFunction(url)(url, {
      method,
      headers: wireHeaders,
      agent,
    });
    let connectTimer: NodeJS.Timeout | undefined;
    const onAbort = () => request.destroy(signal ? (abortReason(signal) as Error) : undefined);
    const settle = () => {
      clearTimeout(connectTimer);
      signal?.removeEventListener("abort", onAbort);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    request.once("socket", (socket) => {
      if (!socket.connecting) return;
      connectTimer = setTimeout(
        () => request.destroy(connectTimeout(url, connectTimeoutMs)),
        connectTimeoutMs,
      );
      // Open means ready to send: for https:, once the TLS handshake is done.
      socket.once(url.protocol === "https:" ? "secureConnect" : "connect", () => clearTimeout(connectTimer));
    });
    request.once("response", (message) => {
      settle();
      resolve(message);
    });
    // `on`, not `once`: a request can report a second error (its socket's, after an abort).
    request.on("error", (error) => {
      settle();
      reject(signal?.aborted ? abortReason(signal) : networkError(error));
    });
    if (body instanceof Readable) pipeline(body, request, () => {});
    else request.end(body);
  });
}

/** As the system reports a connect that timed out: `ETIMEDOUT` from the `connect` call. */
function connectTimeout(url: URL, ms: number): Error {
  return Object.assign(new Error(`connecting to ${url.host} took more than ${ms} ms`), {
    code: "ETIMEDOUT",
    syscall: "connect",
  });
}

function responseOf(message: IncomingMessage, exchange: Exchange, redirected: boolean): FetchResponse {
  const headers = new FetchHeaders();
  const raw = message.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  const status = message.statusCode ?? 0;
  let body: ReadableStream<Uint8Array> | null = null;
  if (exchange.method === "HEAD" || NULL_BODY_STATUSES.has(status)) message.resume();
  else body = bodyStreamOf(decoded(message, headers.get("content-encoding")), exchange.signal);
  return new FetchResponse({
    status,
    statusText: message.statusMessage ?? "",
    headers,
    url: exchange.url.href,
    redirected,
    body,
  });
}
