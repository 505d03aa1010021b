import type { Stats } from "node:fs";
import { lstat, readdir, stat } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import type { OmniMessage } from "@penguin/protocol";
import { defaultToolLimits, type ToolDefinitionConfig, type ToolLimits } from "@penguin/state";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../environment/types.js";
import { answer, fail } from "../call-text.js";
import {
  booleanArgument,
  confinementRefusal,
  describeFsError,
  optionalStringArgument,
  resolveToolPath,
  shownPath,
  stringArgument,
} from "../files/file-tool-support.js";
import { existingPath } from "../files/path-hint.js";
import { readRegularFile } from "../files/regular-file.js";
import { baseNameMatcher, pathGlobProblem } from "./glob.js";
import { type MatchFailure, RegexMatcher } from "./regex-matcher.js";

// "search_text: a literal string, or a regular expression with regex; a file or a directory;
// include globs matched against base names; binary, unreadable and oversized files skipped while
// walking; results as path, line number and line, capped with a count of what was left out."

type SearchLimits = ToolLimits["search_text"];

/** Version-control metadata is not searched while walking (search it by naming it as the path). */
const SKIPPED_DIRECTORIES = new Set([".git", ".hg", ".svn"]);

/**
 * A regular-expression search hands the worker files in batches of up to this many characters
 * (a larger file goes alone), so small files do not cost a message each...
 */
const REGEX_BATCH_CHARS = 4 * 1024 * 1024;
/** ...and of at most this many files. */
const REGEX_BATCH_FILES = 1_000;

/** How a search ended early: interrupted, or with a message for the model. */
type SearchEnd = { aborted: true } | { aborted: false; message: string };

function withoutCarriageReturn(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

/** The 0-based numbers of the lines a literal search matches, tested on this thread. */
function* literalHits(lines: readonly string[], matchesLine: (line: string) => boolean): Generator<number> {
  for (let i = 0; i < lines.length; i += 1) if (matchesLine(withoutCarriageReturn(lines[i]!))) yield i;
}

/** What the model reads when the worker could not answer for a batch of files. */
function regexFailure(
  failure: MatchFailure,
  files: readonly { name: string }[],
  budgetMs: number,
): SearchEnd {
  if (failure.reason === "aborted") return { aborted: true };
  if (failure.reason === "crashed") {
    return {
      aborted: false,
      message: `The regular expression could not be run (${failure.message}). Simplify it, or search for a literal string with regex: false.`,
    };
  }
  const file = files[failure.item]?.name ?? "a file";
  return {
    aborted: false,
    message: `The regular expression took longer than ${budgetMs / 1000} s on ${file} (catastrophic backtracking?), so the search stopped. Simplify it (avoid nested quantifiers like (a+)+ and overlapping alternatives like (a|a)*), or search for a literal string with regex: false.`,
  };
}

async function* ended(ctx: ToolExecutionContext, end: SearchEnd): AsyncGenerator<OmniMessage, ToolResult> {
  if (end.aborted) return { stopReason: "aborted" };
  return yield* fail(ctx, end.message);
}

/** A validated search_text call. */
interface SearchPlan {
  pattern: string;
  rawPath: string | undefined;
  include: readonly string[];
  matchesName: (name: string) => boolean;
  /** Tests a line of a literal search. */
  matchesLine: (line: string) => boolean;
  /** Tests the lines of a regular-expression search, off this thread. */
  matcher: RegexMatcher | undefined;
}

interface Tally {
  matches: number;
  shown: string[];
  filesWithMatches: number;
  filesSearched: number;
  binary: number;
  oversized: number;
  unreadable: number;
  hitFileCap: boolean;
  /** Files the include globs left out. */
  excludedByInclude: number;
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

    const pathGlob = pathGlobProblem(include.value, rawPath.value || ".");
    if (pathGlob) return yield* fail(ctx, pathGlob);
    let matchesName: (name: string) => boolean;
    try {
      matchesName = baseNameMatcher(include.value);
    } catch (error) {
      return yield* fail(ctx, `Invalid include glob: ${(error as Error).message}.`);
    }
    // A literal search tests lines here; a regular expression is tested in a worker thread
    // (regex-matcher.ts), since a catastrophic one would otherwise freeze this whole process.
    let matcher: RegexMatcher | undefined;
    let matchesLine: (line: string) => boolean = () => false;
    if (regex.value) {
      const compiled = RegexMatcher.compile(pattern.value, ignoreCase.value ? "i" : "");
      if (!compiled.ok) {
        return yield* fail(
          ctx,
          `Invalid regular expression: ${compiled.error}. Fix it, or search for the literal text with regex: false.`,
        );
      }
      matcher = compiled.matcher;
    } else if (ignoreCase.value) {
      const needle = pattern.value.toLowerCase();
      matchesLine = (line) => line.toLowerCase().includes(needle);
    } else {
      matchesLine = (line) => line.includes(pattern.value);
    }
    try {
      return yield* search(ctx, {
        pattern: pattern.value,
        rawPath: rawPath.value,
        include: include.value,
        matchesName,
        matchesLine,
        matcher,
      });
    } finally {
      matcher?.dispose();
    }
  }

  async function* search(
    ctx: ToolExecutionContext,
    { pattern, rawPath, include, matchesName, matchesLine, matcher }: SearchPlan,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    const root = resolveToolPath(ctx.workspaceDir, rawPath || ".");
    const refusal = confinementRefusal(ctx, root);
    if (refusal !== undefined) return yield* fail(ctx, refusal);
    const found = await existingPath(root, "search", stat);
    if (!found.ok) return yield* fail(ctx, found.message);
    const rootInfo = found.info;

    const tally: Tally = {
      matches: 0,
      shown: [],
      filesWithMatches: 0,
      filesSearched: 0,
      binary: 0,
      oversized: 0,
      unreadable: 0,
      hitFileCap: false,
      excludedByInclude: 0,
    };

    /** Counts and shows the matching lines of one file, given as their 0-based numbers. */
    const record = (name: string, lines: readonly string[], hits: Iterable<number>) => {
      let found = false;
      for (const index of hits) {
        found = true;
        tally.matches += 1;
        if (tally.shown.length < limits.maxMatches) {
          const line = withoutCarriageReturn(lines[index]!);
          tally.shown.push(`${name}:${index + 1}:${cutLine(line, limits.maxLineChars)}`);
        }
      }
      if (found) tally.filesWithMatches += 1;
    };

    // Files read for the regular expression wait here, so that many small files cost the worker
    // one message; they are recorded in the order they were read.
    let batch: { name: string; text: string }[] = [];
    let batchChars = 0;
    /** Matches the files waiting in the batch; the failure ends the search. */
    const flush = async (): Promise<SearchEnd | undefined> => {
      if (!matcher || batch.length === 0) return undefined;
      const files = batch;
      batch = [];
      batchChars = 0;
      const texts = files.map((file) => file.text);
      const outcome = await matcher.matchTexts(texts, {
        budgetMs: limits.regexTimeoutMs,
        signal: ctx.signal,
      });
      if (!outcome.ok) return regexFailure(outcome, files, limits.regexTimeoutMs);
      files.forEach((file, i) => {
        const hits = outcome.hits[i]!;
        if (hits.length > 0) record(file.name, file.text.split("\n"), hits);
      });
      return undefined;
    };

    /** Searches one file (a regular expression: queues it); the reason it was skipped, if it was. */
    const searchFile = async (
      path: string,
      size: number,
    ): Promise<"binary" | "oversized" | "unreadable" | SearchEnd | undefined> => {
      if (size > limits.maxFileBytes) return "oversized";
      let bytes: Buffer;
      try {
        bytes = await readRegularFile(path);
      } catch {
        return "unreadable";
      }
      if (bytes.includes(0)) return "binary";
      tally.filesSearched += 1;
      const name = resultPath(ctx.workspaceDir, path);
      const text = bytes.toString("utf8");
      if (!matcher) {
        const lines = text.split("\n");
        record(name, lines, literalHits(lines, matchesLine));
        return undefined;
      }
      batch.push({ name, text });
      batchChars += text.length;
      if (batchChars < REGEX_BATCH_CHARS && batch.length < REGEX_BATCH_FILES) return undefined;
      return flush();
    };

    let visited = 0;
    if (!rootInfo.isDirectory()) {
      // A file named explicitly is searched, or the reason it cannot be is the answer.
      const skipped = (await searchFile(root, rootInfo.size)) ?? (await flush());
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
      if (skipped) return yield* ended(ctx, skipped);
    } else {
      // Depth first in name order; symlinks are not followed, so a link loop cannot trap the walk.
      const stack: string[] = [root];
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
          if (!info.isFile()) continue;
          if (!matchesName(name)) {
            tally.excludedByInclude += 1;
            continue;
          }
          if (visited >= limits.maxFiles) {
            tally.hitFileCap = true;
            break;
          }
          visited += 1;
          const skipped = await searchFile(path, info.size);
          if (typeof skipped === "string") tally[skipped] += 1;
          else if (skipped) return yield* ended(ctx, skipped);
        }
        if (tally.hitFileCap) break;
        for (let i = subdirs.length - 1; i >= 0; i -= 1) stack.push(subdirs[i]!);
      }
      const last = await flush();
      if (last) return yield* ended(ctx, last);
    }

    const lines =
      tally.matches === 0
        ? [`No matches for ${JSON.stringify(pattern)} in ${shownPath(root)}.`]
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
    if (include.length > 0 && tally.excludedByInclude > 0 && visited === 0) {
      const seen = tally.excludedByInclude;
      summary.push(
        `include ${JSON.stringify(include)} matched none of the ${seen} file${seen === 1 ? "" : "s"} here (it matches base names): widen it or drop it`,
      );
    }
    lines.push(`[${summary.join("; ")}]`);
    return yield* answer(ctx, lines.join("\n"));
  }

  return { name: definition.name, definition, execute };
}
