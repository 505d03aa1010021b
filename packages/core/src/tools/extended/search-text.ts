import type { Stats } from "node:fs";
import { lstat, readdir, readFile, stat } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import type { OmniMessage } from "@penguin/protocol";
import { defaultToolLimits, type ToolDefinitionConfig, type ToolLimits } from "@penguin/state";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../environment/types.js";
import {
  answer,
  booleanArgument,
  describeFsError,
  fail,
  fsErrorCode,
  optionalStringArgument,
  resolveToolPath,
  shownPath,
  stringArgument,
} from "../file-tool-support.js";
import { missingPathHint } from "../path-hint.js";
import { baseNameMatcher } from "./glob.js";

// "search_text: a literal string, or a regular expression with regex; a file or a directory;
// include globs matched against base names; binary, unreadable and oversized files skipped while
// walking; results as path, line number and line, capped with a count of what was left out."

type SearchLimits = ToolLimits["search_text"];

/** Version-control metadata is not searched while walking (search it by naming it as the path). */
const SKIPPED_DIRECTORIES = new Set([".git", ".hg", ".svn"]);

interface Tally {
  matches: number;
  shown: string[];
  filesWithMatches: number;
  filesSearched: number;
  binary: number;
  oversized: number;
  unreadable: number;
  hitFileCap: boolean;
}

function cutLine(line: string, maxChars: number): string {
  if (line.length <= maxChars) return line;
  let end = maxChars;
  const code = line.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${line.slice(0, end)} [… line cut at ${maxChars} chars]`;
}

/** How a result names a file: relative to the workspace when inside it (usable as a tool path), else absolute. */
function resultPath(workspaceDir: string, path: string): string {
  const rel = relative(workspaceDir, path);
  if (rel !== "" && !rel.startsWith("..") && !isAbsolute(rel)) return rel.split(sep).join("/");
  return shownPath(path);
}

function stringList(
  args: Record<string, unknown>,
  name: string,
): { ok: true; value: string[] } | { ok: false; error: string } {
  const value = args[name];
  if (value === undefined || value === null) return { ok: true, value: [] };
  if (typeof value === "string") return { ok: true, value: [value] };
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return { ok: true, value };
  return { ok: false, error: `argument "${name}" must be a list of glob strings` };
}

export function createSearchTextTool(
  definition: ToolDefinitionConfig,
  limits: SearchLimits = defaultToolLimits().search_text,
): BuiltinTool {
  async function* execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    const pattern = stringArgument(args, "pattern");
    if (!pattern.ok) return yield* fail(ctx, pattern.error);
    if (pattern.value === "") return yield* fail(ctx, "pattern is empty: give the text to search for.");
    const regex = booleanArgument(args, "regex", false);
    if (!regex.ok) return yield* fail(ctx, regex.error);
    const ignoreCase = booleanArgument(args, "ignore_case", false);
    if (!ignoreCase.ok) return yield* fail(ctx, ignoreCase.error);
    const rawPath = optionalStringArgument(args, "path");
    if (!rawPath.ok) return yield* fail(ctx, rawPath.error);
    if (rawPath.value?.includes("\0")) return yield* fail(ctx, 'argument "path" contains a NUL character');
    const include = stringList(args, "include");
    if (!include.ok) return yield* fail(ctx, include.error);

    let matchesName: (name: string) => boolean;
    try {
      matchesName = baseNameMatcher(include.value);
    } catch (error) {
      return yield* fail(ctx, `Invalid include glob: ${(error as Error).message}.`);
    }
    let matchesLine: (line: string) => boolean;
    if (regex.value) {
      let compiled: RegExp;
      try {
        compiled = new RegExp(pattern.value, ignoreCase.value ? "i" : "");
      } catch (error) {
        return yield* fail(
          ctx,
          `Invalid regular expression: ${(error as Error).message}. Fix it, or search for the literal text with regex: false.`,
        );
      }
      matchesLine = (line) => compiled.test(line);
    } else if (ignoreCase.value) {
      const needle = pattern.value.toLowerCase();
      matchesLine = (line) => line.toLowerCase().includes(needle);
    } else {
      matchesLine = (line) => line.includes(pattern.value);
    }

    const root = resolveToolPath(ctx.workspaceDir, rawPath.value || ".");
    let rootInfo: Stats;
    try {
      rootInfo = await stat(root);
    } catch (error) {
      if (fsErrorCode(error) === "ENOENT") {
        return yield* fail(ctx, `Not found: ${shownPath(root)}. ${await missingPathHint(root)}`);
      }
      return yield* fail(ctx, describeFsError("search", root, error));
    }

    const tally: Tally = {
      matches: 0,
      shown: [],
      filesWithMatches: 0,
      filesSearched: 0,
      binary: 0,
      oversized: 0,
      unreadable: 0,
      hitFileCap: false,
    };

    /** Searches one file; the reason it was skipped, if it was. */
    const searchFile = async (
      path: string,
      size: number,
    ): Promise<"binary" | "oversized" | "unreadable" | undefined> => {
      if (size > limits.maxFileBytes) return "oversized";
      let bytes: Buffer;
      try {
        bytes = await readFile(path);
      } catch {
        return "unreadable";
      }
      if (bytes.includes(0)) return "binary";
      tally.filesSearched += 1;
      const lines = bytes.toString("utf8").split("\n");
      let found = false;
      const name = resultPath(ctx.workspaceDir, path);
      lines.forEach((raw, index) => {
        const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
        if (!matchesLine(line)) return;
        found = true;
        tally.matches += 1;
        if (tally.shown.length < limits.maxMatches) {
          tally.shown.push(`${name}:${index + 1}:${cutLine(line, limits.maxLineChars)}`);
        }
      });
      if (found) tally.filesWithMatches += 1;
      return undefined;
    };

    if (!rootInfo.isDirectory()) {
      // A file named explicitly is searched, or the reason it cannot be is the answer.
      const skipped = await searchFile(root, rootInfo.size);
      if (skipped === "oversized") {
        return yield* fail(
          ctx,
          `${shownPath(root)} has ${rootInfo.size} bytes, more than search_text reads (${limits.maxFileBytes}). Search it with exec_command (e.g. grep -n).`,
        );
      }
      if (skipped === "binary")
        return yield* fail(
          ctx,
          `${shownPath(root)} is a binary file (it contains NUL bytes); search_text searches text only.`,
        );
      if (skipped === "unreadable")
        return yield* fail(ctx, describeFsError("read", root, new Error("unreadable")));
    } else {
      // Depth first in name order; symlinks are not followed, so a link loop cannot trap the walk.
      const stack: string[] = [root];
      let visited = 0;
      while (stack.length > 0) {
        if (ctx.signal?.aborted) return { stopReason: "aborted" };
        const dir = stack.pop()!;
        let names: string[];
        try {
          names = (await readdir(dir)).sort();
        } catch {
          tally.unreadable += 1;
          continue;
        }
        const subdirs: string[] = [];
        for (const name of names) {
          const path = join(dir, name);
          let info: Stats;
          try {
            info = await lstat(path);
          } catch {
            tally.unreadable += 1;
            continue;
          }
          if (info.isDirectory()) {
            if (!SKIPPED_DIRECTORIES.has(name)) subdirs.push(path);
            continue;
          }
          if (!info.isFile() || !matchesName(name)) continue;
          if (visited >= limits.maxFiles) {
            tally.hitFileCap = true;
            break;
          }
          visited += 1;
          const skipped = await searchFile(path, info.size);
          if (skipped) tally[skipped] += 1;
        }
        if (tally.hitFileCap) break;
        for (let i = subdirs.length - 1; i >= 0; i -= 1) stack.push(subdirs[i]!);
      }
    }

    const lines =
      tally.matches === 0
        ? [`No matches for ${JSON.stringify(pattern.value)} in ${shownPath(root)}.`]
        : [...tally.shown];
    const summary = [
      `${tally.matches} match${tally.matches === 1 ? "" : "es"} in ${tally.filesWithMatches} file${tally.filesWithMatches === 1 ? "" : "s"} (${tally.filesSearched} searched)`,
    ];
    const left = tally.matches - tally.shown.length;
    if (left > 0)
      summary.push(
        `${left} more not shown (limit ${limits.maxMatches}): narrow the pattern, path or include`,
      );
    const skipped: string[] = [];
    if (tally.binary > 0) skipped.push(`${tally.binary} binary`);
    if (tally.oversized > 0) skipped.push(`${tally.oversized} over ${limits.maxFileBytes} bytes`);
    if (tally.unreadable > 0) skipped.push(`${tally.unreadable} unreadable`);
    if (skipped.length > 0) summary.push(`skipped ${skipped.join(", ")}`);
    if (tally.hitFileCap) summary.push(`stopped after ${limits.maxFiles} files: search a subdirectory`);
    lines.push(`[${summary.join("; ")}]`);
    return yield* answer(ctx, lines.join("\n"));
  }

  return { name: definition.name, definition, execute };
}
