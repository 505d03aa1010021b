import { mkdir, stat } from "node:fs/promises";
import { dirname } from "node:path";
import type { ToolDefinitionConfig } from "@penguin/state";
import { DIFF_MAX_FILE_BYTES, WRITE_DIFF_MAX_LINES } from "../../environment/limits.js";
import type { BuiltinTool } from "../../environment/types.js";
import { answer, fail } from "../call-text.js";
import { checkpointPaths, recordFileEffects } from "../files/effects.js";
import { hashForChange, readForChange, writeForChange } from "../files/file-text.js";
import {
  describeFsError,
  executeWithArguments,
  fsErrorCode,
  optionalStringArg,
  pathArg,
  pathLockKeys,
  shownPath,
  stringArg,
} from "../files/file-tool-support.js";
import { sha256File, sha256Of } from "../files/hashes.js";
import { specialFileKind, specialFileMessage } from "../files/regular-file.js";
import {
  changeSummary,
  countChanges,
  formatHunks,
  lineCount,
  lineDiff,
  multisetChanges,
  patchLineCount,
} from "../files/unified-diff.js";
import { checkExistingFile, checkMissingFile, recordWrite } from "../files/write-guard.js";

// "write_file — creates parent directories as needed; reports "Created" vs "Overwrote" with
// lines/bytes. An overwrite also shows a small unified diff against the previous content, or a
// one-line +X/−Y summary when the change is large."

function sizeText(text: string): string {
  const lines = lineCount(text);
  const bytes = Buffer.byteLength(text, "utf8");
  return `${lines} line${lines === 1 ? "" : "s"}, ${bytes} byte${bytes === 1 ? "" : "s"}`;
}

/** The previous content as text, or why it cannot be compared. */
function previousText(bytes: Buffer | undefined): { ok: true; text: string } | { ok: false; why: string } {
  if (bytes === undefined) return { ok: false, why: "it was too large to compare" };
  if (bytes.includes(0)) return { ok: false, why: "it was binary" };
  const text = bytes.toString("utf8");
  if (!Buffer.from(text, "utf8").equals(bytes)) return { ok: false, why: "it was not UTF-8 text" };
  return { ok: true, text };
}

function overwriteReport(path: string, before: string, after: string): string {
  if (before === after) return "(content unchanged)";
  if (Buffer.byteLength(after) > DIFF_MAX_FILE_BYTES) {
    const { added, removed } = multisetChanges(before, after);
    return changeSummary(added, removed);
  }
  const patch = lineDiff(shownPath(path), before, after);
  if (!patch) {
    const { added, removed } = multisetChanges(before, after);
    return changeSummary(added, removed);
  }
  if (patchLineCount(patch) > WRITE_DIFF_MAX_LINES) {
    const { added, removed } = countChanges(patch);
    return changeSummary(added, removed);
  }
  return formatHunks(patch);
}

export function createWriteFileTool(definition: ToolDefinitionConfig): BuiltinTool {
  const execute = executeWithArguments(
    {
      path: pathArg("file_path"),
      content: stringArg("content"),
      expected: optionalStringArg("expected_sha256"),
    },
    async function* ({ path, content, expected }, ctx) {
      const shown = shownPath(path);

      // The previous version, read only when it is small enough to diff.
      let previous: { size: number; bytes: Buffer | undefined } | undefined;
      try {
        const info = await stat(path);
        if (info.isDirectory()) return yield* fail(ctx, `${shown} is a directory; write_file writes files.`);
        const special = specialFileKind(info);
        if (special) return yield* fail(ctx, specialFileMessage("write", shown, special));
        const bytes = info.size <= DIFF_MAX_FILE_BYTES ? await readForChange(ctx, path) : undefined;
        previous = { size: bytes?.length ?? info.size, bytes };
      } catch (error) {
        const code = fsErrorCode(error);
        if (code !== "ENOENT") return yield* fail(ctx, describeFsError("read", path, error));
      }

      // The hash of the previous version: for the write guard and for the journal.
      let previousSha256: string | undefined;
      const hashPrevious = async () => {
        if (previous === undefined) return undefined;
        previousSha256 ??= previous.bytes
          ? sha256Of(previous.bytes)
          : await hashForChange(ctx, path, () => sha256File(path, ctx.signal));
        return previousSha256;
      };

      // "replacing … a file needs a read … and write_file … also need[s] that read's hash as expected_sha256".
      if (ctx.fileReads) {
        let verdict: ReturnType<typeof checkMissingFile>;
        if (previous === undefined) {
          verdict = checkMissingFile(path, "write_file", expected);
        } else {
          let currentSha256: string | undefined;
          try {
            currentSha256 = await hashPrevious();
          } catch (error) {
            return yield* fail(ctx, describeFsError("read", path, error));
          }
          if (currentSha256 === undefined) return { stopReason: "aborted" };
          verdict = checkExistingFile(ctx.fileReads, path, {
            tool: "write_file",
            action: "replace",
            currentSha256,
            needsExpected: true,
            expected: expected,
          });
        }
        if (!verdict.ok) return yield* fail(ctx, verdict.message);
      }

      const saved = await checkpointPaths(ctx, [path]);
      if (!saved.ok) return yield* fail(ctx, saved.error);
      if (ctx.recordEffect) {
        let before: string | undefined;
        try {
          before = await hashPrevious();
        } catch (error) {
          return yield* fail(ctx, describeFsError("read", path, error));
        }
        if (previous !== undefined && before === undefined) return { stopReason: "aborted" };
        recordFileEffects(ctx, [{ path, before_sha256: before ?? null, after_sha256: sha256Of(content) }]);
      }
      try {
        await mkdir(dirname(path), { recursive: true });
        await writeForChange(ctx, path, content);
      } catch (error) {
        return yield* fail(ctx, describeFsError("write", path, error));
      }

      // Under the write guard the new hash is reported (and known for the next change of this task).
      const note = recordWrite(ctx, path, content);
      if (previous === undefined) {
        return yield* answer(ctx, `Created ${shown} (${sizeText(content)}).`, { note });
      }
      const before = previousText(previous.bytes);
      const headline = `Overwrote ${shown} (${sizeText(content)}; previously ${previous.size} bytes).`;
      if (!before.ok) {
        return yield* answer(ctx, `${headline}\n(previous content not compared: ${before.why})`, { note });
      }
      return yield* answer(ctx, `${headline}\n${overwriteReport(path, before.text, content)}`, {
        note,
      });
    },
  );

  return {
    name: definition.name,
    definition,
    execute,
    lockKeys: pathLockKeys("file_path"),
  };
}
