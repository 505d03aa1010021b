import { errorMessage } from "@penguin/protocol";
import { defaultToolLimits, type ToolDefinitionConfig, type ToolLimits } from "@penguin/state";
import type { BuiltinTool } from "../../environment/types.js";
import { answer, fail } from "../call-text.js";
import { executeWithArguments, stringArg } from "../files/file-tool-support.js";
import { sniffImageType } from "../files/image-source.js";

// "web_fetch: an http(s) URL through the worker's network; HTML returned as readable text;
// images, PDFs and other binary content refused; 4xx and 5xx are results, not errors; size and
// time limits." What a body is comes from its first bytes as well as its declared type: a PDF
// served as text/plain is still a PDF.

type FetchLimits = ToolLimits["web_fetch"];

/** Media types read as text besides `text/*`. */
const TEXT_TYPES = new Set([
  "application/json",
  "application/ld+json",
  "application/xml",
  "application/javascript",
  "application/ecmascript",
  "application/x-javascript",
  "application/x-sh",
  "application/x-yaml",
  "application/yaml",
  "application/toml",
  "application/sql",
  "application/graphql",
  "application/x-www-form-urlencoded",
]);
const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);
/** Bytes looked at to tell text from binary when the server names no type. */
const SNIFF_BYTES = 8 * 1024;
/** A PDF starts with these bytes ("%PDF-1.7 ..."). */
const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d];
/** From this status on, a response is a result that reports its status, whatever its body. */
const FIRST_ERROR_STATUS = 400;

type Kind = "html" | "text" | "binary" | "unknown";

function kindOf(mediaType: string): Kind {
  if (mediaType === "") return "unknown";
  if (HTML_TYPES.has(mediaType)) return "html";
  if (mediaType.startsWith("text/") || TEXT_TYPES.has(mediaType)) return "text";
  if (mediaType.endsWith("+json") || mediaType.endsWith("+xml")) return "text";
  return "binary";
}

function charsetOf(contentType: string): string {
  const match = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType);
  return match?.[1] ?? "utf-8";
}

function decode(bytes: Uint8Array, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}

/**
 * HTML as the text a reader sees: no scripts, styles or images; links keep their URL. The
 * converter is imported on the first HTML page, so start-up never pays for it.
 */
async function readableText(html: string): Promise<string> {
  const { convert } = await import("html-to-text");
  return convert(html, {
    wordwrap: false,
    selectors: [
      { selector: "img", format: "skip" },
      { selector: "script", format: "skip" },
      { selector: "style", format: "skip" },
      { selector: "noscript", format: "skip" },
      { selector: "a", options: { ignoreHref: false, hideLinkHrefIfSameAsText: true } },
    ],
  }).trim();
}

/** Reads at most `max` bytes of a body; whether more was left unread. */
async function readCapped(response: Response, max: number): Promise<{ bytes: Uint8Array; cut: boolean }> {
  const reader = response.body?.getReader();
  if (!reader) return { bytes: new Uint8Array(), cut: false };
  const parts: Uint8Array[] = [];
  let total = 0;
  let cut = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (total + value.length > max) {
      parts.push(value.subarray(0, max - total));
      total = max;
      cut = true;
      await reader.cancel().catch(() => {});
      break;
    }
    parts.push(value);
    total += value.length;
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return { bytes, cut };
}

function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, SNIFF_BYTES).includes(0);
}

/** What the first bytes say a body is when they are a PDF's or an image's signature, whatever the declared type. */
function sniffedBinary(bytes: Uint8Array): string | undefined {
  if (PDF_MAGIC.every((byte, index) => bytes[index] === byte)) return "a PDF";
  const image = sniffImageType(bytes);
  return image ? `an image (${image})` : undefined;
}

/** "refuses images, PDFs and other binary content": the same words for a declared and a sniffed type. */
function binaryRefusal(url: string, what: string, status: number): string {
  return `${url} answered with ${what} (HTTP ${status}), which is not text; web_fetch refuses images, PDFs and other binary content. Download it with exec_command (e.g. curl -o) if you need the file.`;
}

function mediaTypeOf(response: Response): string {
  return (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

/**
 * Why a body that was read is binary, in words for the model, or undefined for text: a PDF or an
 * image by its first bytes under any declared type, else NULs when the server named no type.
 */
function binaryBodyOf(bytes: Uint8Array, untyped: boolean, declared: string): string | undefined {
  const sniffed = sniffedBinary(bytes);
  if (sniffed) return `content that is ${sniffed} (declared: ${declared})`;
  if (untyped && looksBinary(bytes)) return "content without a type that looks binary";
  return undefined;
}

/** A network failure in words: the cause's code when there is one (`ECONNREFUSED`, `ENOTFOUND`, …). */
function networkError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === "string") return cause.code;
  if (typeof cause?.message === "string") return cause.message;
  return errorMessage(error);
}

/** What a tool says when the session's sandbox has no network. */
export function offlineRefusal(url: string): string {
  return `Refused: ${url} cannot be fetched. This session runs in a sandbox without network access (its execution profile has network: false).`;
}

export function createWebFetchTool(
  definition: ToolDefinitionConfig,
  limits: FetchLimits = defaultToolLimits().web_fetch,
): BuiltinTool {
  const execute = executeWithArguments({ raw: stringArg("url") }, async function* ({ raw }, ctx) {
    let url: URL;
    try {
      url = new URL(raw.trim());
    } catch {
      return yield* fail(ctx, `Not a URL: ${JSON.stringify(raw)}. Give an absolute http:// or https:// URL.`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      return yield* fail(
        ctx,
        `web_fetch fetches http and https URLs only, not ${url.protocol}. Read local files with read_file.`,
      );
    }

    if (ctx.offline) return yield* fail(ctx, offlineRefusal(url.href));
    const timeout = AbortSignal.timeout(limits.timeoutMs);
    const signal = ctx.signal ? AbortSignal.any([ctx.signal, timeout]) : timeout;
    let response: Response;
    let body: { bytes: Uint8Array; cut: boolean } | undefined;
    try {
      response = await fetch(url, {
        signal,
        redirect: "follow",
        headers: { accept: "text/html, text/plain, application/json, text/*;q=0.9, */*;q=0.1" },
      });
      if (kindOf(mediaTypeOf(response)) === "binary") {
        // A declared binary type is not read at all.
        await response.body?.cancel().catch(() => {});
      } else {
        body = await readCapped(response, limits.maxBytes);
      }
    } catch (error) {
      if (ctx.signal?.aborted) return { stopReason: "aborted" };
      if (timeout.aborted) {
        return yield* fail(ctx, `Fetching ${url.href} took longer than ${limits.timeoutMs} ms; gave up.`);
      }
      return yield* fail(ctx, `Fetching ${url.href} failed: ${networkError(error)}.`);
    }

    const contentType = response.headers.get("content-type") ?? "";
    const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
    const header = [`${status} ${response.url}`, `content-type: ${contentType || "(none)"}`];
    if (response.redirected) header.push(`(redirected from ${url.href})`);
    if (body?.cut) header.push(`(body cut at ${limits.maxBytes} bytes)`);

    // "4xx and 5xx are results, not errors": with a binary body, the status is the answer and the
    // body is not shown; below 400 a binary body is refused.
    const binaryOutcome = (what: string) =>
      response.status >= FIRST_ERROR_STATUS
        ? answer(ctx, `${header.join("\n")}\n\n(the body is binary: ${what}; not shown)`)
        : fail(ctx, binaryRefusal(response.url, what, response.status));
    if (!body) return yield* binaryOutcome(contentType);
    let kind = kindOf(mediaTypeOf(response));
    const binary = binaryBodyOf(body.bytes, kind === "unknown", contentType || "no content-type");
    if (binary !== undefined) return yield* binaryOutcome(binary);
    if (kind === "unknown") {
      kind = /^\s*<(!doctype html|html)[\s>]/i.test(decode(body.bytes.subarray(0, 512), "utf-8"))
        ? "html"
        : "text";
    }
    const text = decode(body.bytes, charsetOf(contentType));
    let content = text;
    if (kind === "html") {
      try {
        content = await readableText(text);
      } catch (error) {
        return yield* fail(
          ctx,
          `Converting the HTML of ${response.url} to text failed: ${errorMessage(error)}.`,
        );
      }
    }
    return yield* answer(ctx, `${header.join("\n")}\n\n${content === "" ? "(empty body)" : content}`);
  });

  return { name: definition.name, definition, execute };
}
