import { createRequire } from "node:module";
import { dirname, join, sep } from "node:path";
import { errorMessage } from "@penguin/protocol";

// The text layer of a PDF, page by page, with PDF.js (pdfjs-dist 4.x, whose legacy build runs on
// Node 20). "Load the PDF library lazily (dynamic import on first PDF) so sessions that never
// read a PDF do not pay for it at start-up": nothing here imports it until a PDF is read.
// In Node, PDF.js runs its parser in this thread (its "fake worker"), so no worker file is set up.

type PdfJs = typeof import("pdfjs-dist/legacy/build/pdf.mjs");

export type PdfTextResult =
  | {
      ok: true;
      /** The PDF's page count. */
      pageCount: number;
      /** The lines of each page read (the first `maxPages`), trailing blanks trimmed. */
      pages: string[][];
    }
  | { ok: false; reason: "encrypted" | "corrupt" | "unavailable"; detail: string }
  | { ok: false; reason: "aborted" };

export interface PdfTextRequest {
  /** Pages whose text is extracted at most; the rest are counted only. */
  maxPages: number;
  signal?: AbortSignal;
}

let loading: Promise<PdfJs> | undefined;

/**
 * What PDF.js prints with console.log while it loads when its optional canvas package is missing
 * (e.g. installed with --omit=optional). Text extraction needs no canvas, and on the CLI's stdout
 * these lines would break `--json` output, so they are dropped.
 */
const CANVAS_WARNING = /^Warning: Cannot (load "@napi-rs\/canvas"|polyfill `(DOMMatrix|ImageData|Path2D)`)/;

async function importPdfJs(): Promise<PdfJs> {
  const log = console.log;
  console.log = (...args: unknown[]) => {
    if (typeof args[0] === "string" && CANVAS_WARNING.test(args[0])) return;
    log(...args);
  };
  try {
    return await import("pdfjs-dist/legacy/build/pdf.mjs");
  } finally {
    console.log = log;
  }
}

/** The library, imported once per process; a failed import is tried again on the next PDF. */
function loadPdfJs(): Promise<PdfJs> {
  if (!loading) {
    loading = importPdfJs().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
  }
  return loading;
}

/**
 * The library's own data folders (character maps for CJK text, metrics of the 14 standard fonts),
 * as the directory paths PDF.js reads in Node. Resolved from wherever the package is installed.
 */
function assetUrls(): { cMapUrl: string; standardFontDataUrl: string } | undefined {
  try {
    const root = dirname(createRequire(import.meta.url).resolve("pdfjs-dist/package.json"));
    return { cMapUrl: join(root, "cmaps") + sep, standardFontDataUrl: join(root, "standard_fonts") + sep };
  } catch {
    return undefined;
  }
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "";
}

/** A page's text items joined, one string per line the PDF marks, without blank lines at the ends. */
function pageLines(items: readonly unknown[]): string[] {
  let text = "";
  for (const item of items) {
    // Marked-content items carry no text.
    if (typeof item !== "object" || item === null || !("str" in item)) continue;
    const { str, hasEOL } = item as { str: unknown; hasEOL?: unknown };
    if (typeof str === "string") text += str;
    if (hasEOL === true) text += "\n";
  }
  const lines = text.split(/\r\n|\r|\n/).map((line) => line.trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  while (lines.length > 0 && lines[0] === "") lines.shift();
  return lines;
}

/** Extracts the text of `data` (a whole PDF file). Never throws: every failure is a result. */
export async function extractPdfText(data: Uint8Array, request: PdfTextRequest): Promise<PdfTextResult> {
  const { maxPages, signal } = request;
  if (signal?.aborted) return { ok: false, reason: "aborted" };
  let pdfjs: PdfJs;
  try {
    pdfjs = await loadPdfJs();
  } catch (error) {
    return { ok: false, reason: "unavailable", detail: errorMessage(error) };
  }
  const task = pdfjs.getDocument({
    // PDF.js may take over the buffer it is given: hand it a copy.
    data: new Uint8Array(data),
    ...assetUrls(),
    cMapPacked: true,
    // Text only: no font loading, no code generated from the file, no console chatter.
    disableFontFace: true,
    useSystemFonts: false,
    isEvalSupported: false,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
  });
  const stop = () => void task.destroy();
  signal?.addEventListener("abort", stop, { once: true });
  try {
    const document = await task.promise;
    const pages: string[][] = [];
    const last = Math.min(document.numPages, maxPages);
    for (let number = 1; number <= last; number += 1) {
      if (signal?.aborted) return { ok: false, reason: "aborted" };
      try {
        const page = await document.getPage(number);
        const content = await page.getTextContent();
        pages.push(pageLines(content.items));
        page.cleanup();
      } catch (error) {
        if (signal?.aborted) return { ok: false, reason: "aborted" };
        // One broken page does not hide the others.
        pages.push([`(this page could not be read: ${errorMessage(error)})`]);
      }
    }
    return { ok: true, pageCount: document.numPages, pages };
  } catch (error) {
    if (signal?.aborted) return { ok: false, reason: "aborted" };
    if (errorName(error) === "PasswordException") {
      return { ok: false, reason: "encrypted", detail: errorMessage(error) };
    }
    return { ok: false, reason: "corrupt", detail: errorMessage(error) };
  } finally {
    signal?.removeEventListener("abort", stop);
    await task.destroy().catch(() => {});
  }
}
