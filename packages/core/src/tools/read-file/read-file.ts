import { stat } from "node:fs/promises";
import type { ToolDefinitionConfig } from "@penguin/state";
import {
  READ_FILE_DEFAULT_LIMIT,
  READ_FILE_DEFAULT_OFFSET,
  READ_FILE_OUTPUT_RESERVE_CHARS,
  READ_FILE_SCAN_CAP_BYTES,
} from "../../environment/limits.js";
import type { BuiltinTool, ToolExecutionContext } from "../../environment/types.js";
import { answer, fail } from "../call-text.js";
import { readWindowThrough, seamFor } from "../files/file-text.js";
import {
  describeFsError,
  executeWithArguments,
  fsErrorCode,
  pathArg,
  positiveIntegerArg,
  shownPath,
} from "../files/file-tool-support.js";
import { readLineWindow, type WindowResult, windowOfLines } from "../files/line-window.js";
import { missingPathHint } from "../files/path-hint.js";
import { specialFileKind, specialFileMessage } from "../files/regular-file.js";
import { createRichReader, type RichReadLimits } from "../files/rich-read.js";
import { recordRead, recordTextRead } from "../files/write-guard.js";

// "read_file — cat -n style output (line number, tab, content); overlong single lines are
// truncated, and binary content (NUL bytes) is rejected with advice to use shell/image tools."

const MiB = 1024 * 1024;

function continuationNote(
  first: number,
  last: number,
  totalLines: number | undefined,
  sizeBytes: number,
  cutForSize: boolean,
): string {
  const of =
    totalLines !== undefined
      ? `of ${totalLines}`
      : `of more than ${last} (the file has ${sizeBytes} bytes; lines are counted in its first ${READ_FILE_SCAN_CAP_BYTES / MiB} MiB only)`;
  const why = cutForSize ? "; output size limit reached" : "";
  return `[lines ${first}-${last} ${of}${why}; continue with offset=${last + 1}]`;
}

export interface ReadFileOptions {
  /**
   * Rich reads (`tools.readFileRich`, on in the extended preset): images come back as image
   * content and PDFs as their text, within these limits. Absent: the core contract, binary refused.
   */
  rich?: RichReadLimits;
}

const CORE_BINARY_ADVICE =
  "read_file shows text only. Inspect it with exec_command (e.g. file, xxd | head, strings), or use the image tool if it is an image.";
const RICH_BINARY_ADVICE =
  "it is not a PDF or a png, jpeg, gif or webp image, the binary files read_file can show. Inspect it with exec_command (e.g. file, xxd | head, strings), or convert it to one of those first.";

/** How to see what a directory holds, with the tools this session offers. */
function directoryAdvice(ctx: ToolExecutionContext): string {
  if (ctx.offersTool?.("list_files")) return "List it with list_files.";
  if (ctx.offersTool === undefined) return "List it with list_files, or ls.";
  return "List it with exec_command (e.g. ls -la).";
}

export function createReadFileTool(
  definition: ToolDefinitionConfig,
  options: ReadFileOptions = {},
): BuiltinTool {
  // A page must fit in the tool's own output cap, so the continuation note is never cut away.
  // (Under a cap smaller than the reserve, a page is one line: the least that still makes progress.)
  const cap = definition.maxOutputLength;
  const maxChars = cap > 0 ? Math.max(1, cap - READ_FILE_OUTPUT_RESERVE_CHARS) : 0;
  const rich = options.rich ? createRichReader(options.rich) : undefined;
  const binaryAdvice = rich ? RICH_BINARY_ADVICE : CORE_BINARY_ADVICE;

  const execute = executeWithArguments(
    {
      path: pathArg("file_path"),
      offset: positiveIntegerArg("offset", READ_FILE_DEFAULT_OFFSET),
      limit: positiveIntegerArg("limit", READ_FILE_DEFAULT_LIMIT),
    },
    async function* ({ path, offset, limit }, ctx) {
      const shown = shownPath(path);

      let size: number;
      let mtimeMs: number;
      try {
        const info = await stat(path);
        if (info.isDirectory()) {
          return yield* fail(ctx, `${shown} is a directory, not a file. ${directoryAdvice(ctx)}`);
        }
        const special = specialFileKind(info);
        if (special) return yield* fail(ctx, specialFileMessage("read", shown, special));
        size = info.size;
        mtimeMs = info.mtimeMs;
      } catch (error) {
        if (fsErrorCode(error) === "ENOENT") {
          return yield* fail(ctx, `File not found: ${shown}. ${await missingPathHint(path)}`);
        }
        return yield* fail(ctx, describeFsError("read", path, error));
      }

      // Text through the session's seam (an editor's buffers): its hash is taken from that text.
      const seam = seamFor(ctx, size);
      // Under the write guard, the whole file's sha256 goes into the note (and the read is remembered).
      let note = seam ? undefined : await recordRead(ctx, path);
      const failWith = (text: string) => answer(ctx, text, { stopReason: "failed", note });

      let window: WindowResult;
      const request = { offset, limit, maxChars };
      const outcome = rich ? await rich.read({ path, shown, size, mtimeMs, ctx }) : undefined;
      if (outcome?.kind === "aborted") return { stopReason: "aborted" };
      // An image's or a PDF's content comes from the disk, and so does its hash.
      if (seam && outcome !== undefined && outcome.kind !== "not-rich") note = await recordRead(ctx, path);
      if (outcome?.kind === "answer") {
        if (outcome.failed) return yield* failWith(outcome.text);
        return yield* answer(ctx, outcome.text, { note, images: outcome.images });
      }
      if (outcome?.kind === "lines") {
        window = windowOfLines(outcome.lines, request);
      } else if (seam) {
        try {
          const seen = await readWindowThrough(seam, path, { ...request, signal: ctx.signal });
          if (ctx.signal?.aborted) return { stopReason: "aborted" };
          window = seen.window;
          if (seen.sha256 !== undefined) note = recordTextRead(ctx, path, seen.sha256);
        } catch (error) {
          if (ctx.signal?.aborted) return { stopReason: "aborted" };
          return yield* failWith(describeFsError("read", path, error));
        }
      } else {
        try {
          window = await readLineWindow(path, { ...request, signal: ctx.signal });
        } catch (error) {
          return yield* failWith(describeFsError("read", path, error));
        }
      }
      if (window.kind === "aborted") return { stopReason: "aborted" };
      if (window.kind === "binary") {
        return yield* failWith(
          `${shown} looks like a binary file (it contains NUL bytes), and ${binaryAdvice}`,
        );
      }
      if (window.totalLines === 0) return yield* answer(ctx, `${shown} is empty (0 lines).`, { note });
      if (window.lines.length === 0) {
        return yield* failWith(
          `offset ${offset} is past the end of ${shown}, which has ${window.totalLines} lines. Use an offset from 1 to ${window.totalLines}.`,
        );
      }
      let text = window.lines.join("\n");
      if (window.more) {
        const last = window.firstLine + window.lines.length - 1;
        text += `\n${continuationNote(window.firstLine, last, window.totalLines, size, window.cutForSize)}`;
      }
      return yield* answer(ctx, text, { note });
    },
  );

  return { name: definition.name, definition, execute };
}
