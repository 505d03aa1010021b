import { stat } from "node:fs/promises";
import { IMAGE_FETCH_TIMEOUT_MS, IMAGE_MAX_BYTES } from "../../environment/limits.js";
import type { PathConfinement } from "../../environment/workspace-confinement.js";
import { fsErrorCode, resolveToolPath, shownPath } from "./file-tool-support.js";
import { missingPathHint } from "./path-hint.js";
import { openRegularForReading, specialFileKind, specialFileMessage } from "./regular-file.js";

// "Both accept an http(s) URL or a Workspace path and support png/jpeg/gif/webp up to 5MB." The
// type is read from the content's magic bytes, never from a file name or a Content-Type header,
// which are often wrong.

export type ImageMimeType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

export interface LoadedImage {
  mimeType: ImageMimeType;
  bytes: Buffer;
  dataUrl: string;
  /** How the source is shown to the model: the URL, or the model-visible absolute path. */
  shownSource: string;
}

export type ImageLoad = { ok: true; image: LoadedImage } | { ok: false; error: string };

const MB = 1024 * 1024;
const SUPPORTED = "png, jpeg, gif or webp";

function startsWith(bytes: Uint8Array, signature: readonly number[], at = 0): boolean {
  if (bytes.length < at + signature.length) return false;
  return signature.every((byte, index) => bytes[at + index] === byte);
}

const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));

/** The image type of `bytes` by its signature, or undefined. */
export function sniffImageType(bytes: Uint8Array): ImageMimeType | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) return "image/gif";
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) return "image/webp";
  return undefined;
}

/** What unsupported content looks like, for a clearer refusal. */
function describeUnsupported(bytes: Uint8Array): string {
  if (bytes.length === 0) return "it is empty";
  const head = Buffer.from(bytes.subarray(0, 512)).toString("utf8").trimStart().toLowerCase();
  if (head.startsWith("%pdf")) return "it looks like a PDF";
  if (head.startsWith("<svg") || (head.startsWith("<?xml") && head.includes("<svg"))) {
    return "it looks like an SVG (vector image); convert it to png first, e.g. with exec_command";
  }
  if (head.startsWith("<!doctype html") || head.startsWith("<html")) return "it looks like an HTML page";
  if (startsWith(bytes, ascii("BM"))) return "it looks like a BMP image; convert it to png first";
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) {
    return "it looks like a TIFF image; convert it to png first";
  }
  if (startsWith(bytes, ascii("ftyp"), 4)) return "it looks like a HEIC/AVIF or video file";
  return "its content is not a recognised image";
}

function toImage(bytes: Buffer, shownSource: string): ImageLoad {
  const mimeType = sniffImageType(bytes);
  if (!mimeType) {
    return {
      ok: false,
      error: `${shownSource} is not a supported image (${SUPPORTED}): ${describeUnsupported(bytes)}.`,
    };
  }
  return {
    ok: true,
    image: { mimeType, bytes, dataUrl: `data:${mimeType};base64,${bytes.toString("base64")}`, shownSource },
  };
}

function tooBig(shownSource: string, size: number | undefined): string {
  const what = size === undefined ? "more than 5 MB" : `${(size / MB).toFixed(1)} MB`;
  return `${shownSource} is too large: ${what}; images up to ${IMAGE_MAX_BYTES / MB} MB are supported.`;
}

async function loadFromUrl(url: URL, signal: AbortSignal | undefined): Promise<ImageLoad> {
  const shown = url.href;
  const timeout = AbortSignal.timeout(IMAGE_FETCH_TIMEOUT_MS);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(url, { signal: combined, redirect: "follow" });
  } catch (error) {
    if (timeout.aborted)
      return { ok: false, error: `Fetching ${shown} timed out after ${IMAGE_FETCH_TIMEOUT_MS} ms.` };
    if (signal?.aborted) return { ok: false, error: `Fetching ${shown} was aborted.` };
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return {
      ok: false,
      error: `Could not fetch ${shown}: ${cause?.code ?? cause?.message ?? String(error)}.`,
    };
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    return {
      ok: false,
      error: `Fetching ${shown} failed: HTTP ${`${response.status} ${response.statusText}`.trim()}.`,
    };
  }
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > IMAGE_MAX_BYTES) {
    await response.body?.cancel().catch(() => {});
    return { ok: false, error: tooBig(shown, declared) };
  }
  // Read the body chunk by chunk and stop at the cap: a lying or missing Content-Length cannot
  // make the tool hold more than 5 MB.
  const chunks: Uint8Array[] = [];
  let received = 0;
  try {
    const reader = response.body?.getReader();
    if (reader) {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        received += value.length;
        if (received > IMAGE_MAX_BYTES) {
          await reader.cancel().catch(() => {});
          return { ok: false, error: tooBig(shown, undefined) };
        }
        chunks.push(value);
      }
    }
  } catch (error) {
    if (timeout.aborted)
      return { ok: false, error: `Fetching ${shown} timed out after ${IMAGE_FETCH_TIMEOUT_MS} ms.` };
    if (signal?.aborted) return { ok: false, error: `Fetching ${shown} was aborted.` };
    return { ok: false, error: `Could not read the response from ${shown}: ${String(error)}.` };
  }
  return toImage(Buffer.concat(chunks), shown);
}

async function loadFromFile(workspaceDir: string, source: string): Promise<ImageLoad> {
  const path = resolveToolPath(workspaceDir, source);
  const shown = shownPath(path);
  try {
    const info = await stat(path);
    if (info.isDirectory()) return { ok: false, error: `${shown} is a directory, not an image file.` };
    const special = specialFileKind(info);
    if (special) return { ok: false, error: specialFileMessage("read", shown, special) };
    if (info.size > IMAGE_MAX_BYTES) return { ok: false, error: tooBig(shown, info.size) };
    // Read at most one byte past the cap, in case the file grew since stat.
    const handle = await openRegularForReading(path);
    try {
      const buffer = Buffer.alloc(IMAGE_MAX_BYTES + 1);
      let length = 0;
      for (;;) {
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
        if (bytesRead === 0) break;
        length += bytesRead;
        if (length === buffer.length) break;
      }
      if (length > IMAGE_MAX_BYTES) return { ok: false, error: tooBig(shown, undefined) };
      return toImage(Buffer.from(buffer.subarray(0, length)), shown);
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (fsErrorCode(error) === "ENOENT")
      return { ok: false, error: `Image not found: ${shown}. ${await missingPathHint(path)}` };
    const code = fsErrorCode(error) ?? String(error);
    return { ok: false, error: `Cannot read ${shown}: ${code}.` };
  }
}

/** An image from `source`: an http(s) URL, or a path (absolute, or relative to the workspace). */
export async function loadImage(
  source: string,
  workspaceDir: string,
  signal?: AbortSignal,
  sandbox: { confinement?: PathConfinement; offline?: boolean } = {},
): Promise<ImageLoad> {
  const trimmed = source.trim();
  if (trimmed === "")
    return { ok: false, error: 'argument "source" is empty: give an http(s) URL or a file path.' };
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(trimmed)?.[1]?.toLowerCase();
  // A one-letter "scheme" is a Windows drive letter (C:\…), so a path.
  if (scheme && scheme.length > 1) {
    if (scheme !== "http" && scheme !== "https") {
      return {
        ok: false,
        error: `Unsupported image source scheme "${scheme}:". Give an http(s) URL or a file path.`,
      };
    }
    let url: URL;
    try {
      url = new URL(trimmed);
    } catch {
      return { ok: false, error: `Invalid URL: ${trimmed}.` };
    }
    if (sandbox.offline)
      return {
        ok: false,
        error: `Refused: ${url.href} cannot be fetched. This session runs in a sandbox without network access.`,
      };
    return loadFromUrl(url, signal);
  }
  const refusal = sandbox.confinement?.refusal(resolveToolPath(workspaceDir, source));
  if (refusal !== undefined) return { ok: false, error: refusal };
  return loadFromFile(workspaceDir, source);
}
