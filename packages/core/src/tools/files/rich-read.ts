import type { ToolLimits } from "@penguin/state";
import { IMAGE_MAX_BYTES } from "../../environment/limits.js";
import type { ToolExecutionContext } from "../../environment/types.js";
import { describeFsError } from "./file-tool-support.js";
import { imageDimensions } from "./image-dimensions.js";
import { type ImageMimeType, sniffImageType } from "./image-source.js";
import { extractPdfText } from "./pdf-text.js";
import { openRegularForReading, readRegularFile } from "./regular-file.js";

// read_file's rich branch ("In the extended preset `read_file` also returns an image as image
// content (vision models) and extracts the text of a PDF"): what a file is comes from its first
// bytes, never its name. Images come back whole (≤ 5 MB) as image content; a PDF comes back as
// its text lines with page markers, which read_file then pages like any text.

export type RichReadLimits = ToolLimits["read_file"];

export interface RichReadRequest {
  path: string;
  /** The path as the model sees it. */
  shown: string;
  /** From the stat read_file made. */
  size: number;
  mtimeMs: number;
  ctx: ToolExecutionContext;
}

export type RichReadOutcome =
  /** Neither an image nor a PDF: read_file reads it as text (and refuses other binary content). */
  | { kind: "not-rich" }
  /** A finished answer: an image, or why the file cannot be shown. */
  | { kind: "answer"; text: string; failed: boolean; images?: string[] }
  /** A PDF's text, as lines to page through. */
  | { kind: "lines"; lines: string[] }
  | { kind: "aborted" };

/** The magic of a PDF file ("A PDF (magic `%PDF-`)"). */
const PDF_MAGIC = "%PDF-";
/** Enough bytes to recognise every supported type (webp's is at 8-11). */
const SNIFF_BYTES = 16;
const MB = 1024 * 1024;

const IMAGE_NAMES: Readonly<Record<ImageMimeType, string>> = {
  "image/png": "PNG",
  "image/jpeg": "JPEG",
  "image/gif": "GIF",
  "image/webp": "WebP",
};

function megabytes(bytes: number): string {
  return `${(bytes / MB).toFixed(1)} MB`;
}

async function readHead(path: string): Promise<Buffer> {
  const handle = await openRegularForReading(path);
  try {
    const head = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(head, 0, SNIFF_BYTES, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The lines read_file pages through: each page starts with a marker; pages past the cap are named. */
function pdfLines(pageCount: number, pages: readonly string[][], maxPages: number): string[] {
  const lines: string[] = [];
  pages.forEach((pageText, index) => {
    lines.push(`--- page ${index + 1} of ${pageCount} ---`);
    if (pageText.length === 0) lines.push("(no text on this page)");
    else lines.push(...pageText);
  });
  if (pageCount > pages.length) {
    lines.push(
      `--- pages ${pages.length + 1}-${pageCount} not read: at most ${maxPages} pages of a PDF are read (tools.limits.read_file.pdfMaxPages) ---`,
    );
  }
  return lines;
}

interface CachedPdf {
  path: string;
  size: number;
  mtimeMs: number;
  lines: string[];
}

/**
 * Makes the rich branch of one read_file tool. It keeps the text of the last PDF it read, so
 * paging through a PDF with offset/limit extracts it once (a changed file is extracted again).
 */
export function createRichReader(limits: RichReadLimits) {
  let lastPdf: CachedPdf | undefined;

  async function readImage(request: RichReadRequest, mimeType: ImageMimeType): Promise<RichReadOutcome> {
    const { path, shown, size, ctx } = request;
    const name = IMAGE_NAMES[mimeType];
    const tooLarge = (bytes: number) => ({
      kind: "answer" as const,
      failed: true,
      text: `${shown} is a ${name} image of ${megabytes(bytes)}; images up to ${IMAGE_MAX_BYTES / MB} MB are returned as images. Make a smaller copy first (e.g. with exec_command: convert big.png -resize 50% small.png) and read that.`,
    });
    if (size > IMAGE_MAX_BYTES) return tooLarge(size);
    const bytes = await readRegularFile(path);
    // The file may have grown since it was stat'ed.
    if (bytes.length > IMAGE_MAX_BYTES) return tooLarge(bytes.length);
    const dimensions = imageDimensions(bytes, mimeType);
    const what = [
      `${name} image`,
      `${bytes.length} bytes`,
      ...(dimensions ? [`${dimensions.width}x${dimensions.height} pixels`] : []),
    ].join(", ");
    if (!ctx.modelHasVision) {
      return {
        kind: "answer",
        failed: true,
        text: `${shown} is an image (${what}), and this model cannot see images. Ask describe_image about it instead, with source "${shown}" and a prompt saying what you need to know.`,
      };
    }
    return {
      kind: "answer",
      failed: false,
      text: `${shown}: ${what}.`,
      images: [`data:${mimeType};base64,${bytes.toString("base64")}`],
    };
  }

  async function readPdf(request: RichReadRequest): Promise<RichReadOutcome> {
    const { path, shown, size, mtimeMs, ctx } = request;
    if (lastPdf && lastPdf.path === path && lastPdf.size === size && lastPdf.mtimeMs === mtimeMs) {
      return { kind: "lines", lines: lastPdf.lines };
    }
    if (size > limits.pdfMaxBytes) {
      return {
        kind: "answer",
        failed: true,
        text: `${shown} is a PDF of ${megabytes(size)}; PDFs up to ${megabytes(limits.pdfMaxBytes)} are read (tools.limits.read_file.pdfMaxBytes). Extract its text with exec_command instead (e.g. pdftotext -f 1 -l 20 file.pdf -).`,
      };
    }
    const data = await readRegularFile(path);
    const extracted = await extractPdfText(data, { maxPages: limits.pdfMaxPages, signal: ctx.signal });
    if (!extracted.ok) {
      switch (extracted.reason) {
        case "aborted":
          return { kind: "aborted" };
        case "encrypted":
          return {
            kind: "answer",
            failed: true,
            text: `${shown} is an encrypted PDF that needs a password to open, so its text cannot be read. Ask the user for an unprotected copy (or the password, to decrypt it with exec_command, e.g. qpdf --password=... --decrypt).`,
          };
        case "unavailable":
          return {
            kind: "answer",
            failed: true,
            text: `${shown} is a PDF, but the PDF reader could not be loaded (${extracted.detail}). Extract its text with exec_command instead (e.g. pdftotext file.pdf -).`,
          };
        case "corrupt":
          return {
            kind: "answer",
            failed: true,
            text: `${shown} starts like a PDF but could not be read as one (${extracted.detail}); it may be damaged or incomplete. Inspect it with exec_command (e.g. file, head -c 1024).`,
          };
      }
    }
    const { pageCount, pages } = extracted;
    if (pageCount === 0) {
      return {
        kind: "answer",
        failed: true,
        text: `${shown} is a PDF with no pages: there is nothing to read.`,
      };
    }
    if (pages.every((page) => page.length === 0)) {
      const range =
        pageCount > pages.length ? `the first ${pages.length} of its ${pageCount}` : `its ${pageCount}`;
      return {
        kind: "answer",
        failed: true,
        text: `${shown} is a PDF without a text layer: ${range} page(s) hold no text (scanned or image-only pages). To see them, render pages as images with exec_command (e.g. pdftoppm -png -r 100 -f 1 -l 3 file.pdf page) and read the PNG files.`,
      };
    }
    const lines = pdfLines(pageCount, pages, limits.pdfMaxPages);
    lastPdf = { path, size, mtimeMs, lines };
    return { kind: "lines", lines };
  }

  /** An image or a PDF by its first bytes; anything else is `not-rich`. */
  async function read(request: RichReadRequest): Promise<RichReadOutcome> {
    try {
      const head = await readHead(request.path);
      const mimeType = sniffImageType(head);
      if (mimeType) return await readImage(request, mimeType);
      if (head.subarray(0, PDF_MAGIC.length).toString("latin1") === PDF_MAGIC) return await readPdf(request);
      return { kind: "not-rich" };
    } catch (error) {
      return { kind: "answer", failed: true, text: describeFsError("read", request.path, error) };
    }
  }

  return { read };
}

export type RichReader = ReturnType<typeof createRichReader>;
