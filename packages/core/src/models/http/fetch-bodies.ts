import type { IncomingMessage } from "node:http";
import { pipeline, Readable } from "node:stream";
import { ReadableStream } from "node:stream/web";
import type { FetchHeaders } from "./fetch-headers.js";

// The bodies of the provider fetch (node-http-fetch.ts): a request's as node:http sends it, and a
// response's as the SDKs read it (decoded, as a web stream), with fetch's rules for each.

type RequestBody = NonNullable<RequestInit["body"]>;

/** A request body as node:http sends it: bytes whole, or a stream piped in. */
export type WireBody = Buffer | Readable | undefined;

/** The reason an aborted signal gives, or the DOMException fetch uses when it gives none. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

/** The body as bytes or a stream, with the content type fetch gives a body of that kind. */
export function wireBodyOf(body: RequestBody | undefined, headers: FetchHeaders): WireBody {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return textBody(body, headers, "text/plain;charset=UTF-8");
  if (body instanceof URLSearchParams) {
    return textBody(body.toString(), headers, "application/x-www-form-urlencoded;charset=UTF-8");
  }
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  // Told apart by tag, not `instanceof`, which would load undici's FormData just to ask.
  if (Object.prototype.toString.call(body) === "[object FormData]") {
    throw new TypeError("the provider fetch does not send form data");
  }
  if (body instanceof ReadableStream) return Readable.fromWeb(body);
  if (body instanceof Blob) return Readable.fromWeb(body.stream() as ReadableStream<Uint8Array>);
  if (Symbol.asyncIterator in body || Symbol.iterator in body)
    return Readable.from(body as AsyncIterable<Uint8Array>);
  throw new TypeError("the provider fetch cannot send a body of this kind");
}

function textBody(text: string, headers: FetchHeaders, contentType: string): Buffer {
  if (!headers.has("content-type")) headers.set("content-type", contentType);
  return Buffer.from(text, "utf8");
}

/**
 * The body with its content codings undone, last applied first. A coding this fetch does not
 * know is left as it is, as fetch leaves it. The flush settings accept a stream the server ended
 * without a final block, as Node's fetch does.
 */
export function decoded(message: IncomingMessage, contentEncoding: string | null): Readable {
  if (!contentEncoding) return message;
  const codings = contentEncoding
    .toLowerCase()
    .split(",")
    .map((coding) => coding.trim())
    .filter((coding) => coding !== "" && coding !== "identity");
  if (codings.length === 0) return message;
  // node:zlib is loaded by the first encoded body: provider replies seldom are.
  const { constants, createBrotliDecompress, createGunzip, createInflate } =
    process.getBuiltinModule("node:zlib");
  const decoders = [];
  for (const coding of codings.reverse()) {
    if (coding === "gzip" || coding === "x-gzip") {
      decoders.push(createGunzip({ flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH }));
    } else if (coding === "deflate") {
      decoders.push(createInflate({ flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH }));
    } else if (coding === "br") {
      decoders.push(
        createBrotliDecompress({
          flush: constants.BROTLI_OPERATION_FLUSH,
          finishFlush: constants.BROTLI_OPERATION_FLUSH,
        }),
      );
    } else {
      return message;
    }
  }
  const streams: NodeJS.ReadWriteStream[] = decoders;
  // pipeline ends every stream with the first error, so a broken connection reaches the reader.
  pipeline([message, ...streams], () => {});
  return decoders[decoders.length - 1] as Readable;
}

/**
 * The body as the web stream the SDKs read, pulled as the reader asks: the socket is paused while
 * a chunk waits to be read, so a slow reader holds the server back rather than filling memory.
 * A connection that closes before the end errors the stream (`ECONNRESET`, "aborted"), and so
 * does the caller's abort signal.
 */
export function bodyStreamOf(source: Readable, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  const onAbort = () => source.destroy(signal ? (abortReason(signal) as Error) : undefined);
  /** Set once the stream is closed, errored or cancelled: the source's later events are moot. */
  let finished = false;
  const finish = () => {
    finished = true;
    signal?.removeEventListener("abort", onAbort);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
      source.on("data", (chunk: Buffer) => {
        if (finished) return;
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 0) <= 0) source.pause();
      });
      source.once("end", () => {
        if (finished) return;
        finish();
        controller.close();
      });
      // `on`: a destroyed decoder can report more than one error.
      source.on("error", (error) => {
        if (finished) return;
        finish();
        controller.error(error);
      });
    },
    pull() {
      source.resume();
    },
    cancel() {
      finish();
      source.destroy();
    },
  });
}
