import type { Stats } from "node:fs";
import { lstat, readdir, readlink } from "node:fs/promises";
import { join } from "node:path";
import type { OmniMessage } from "@penguin/protocol";
import { defaultToolLimits, type ToolDefinitionConfig, type ToolLimits } from "@penguin/state";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../environment/types.js";
import { answer, fail } from "../call-text.js";
import {
  booleanArgument,
  confinementRefusal,
  fsErrorCode,
  positiveIntegerArgument,
  resolveToolPath,
  shownPath,
  stringArgument,
} from "../files/file-tool-support.js";
import { existingPath } from "../files/path-hint.js";

// "list_files: one directory, or a bounded tree with recursive (depth and entry caps, a truncated
// flag); type, size and permission mode for each entry; nothing hidden (dotfiles, .git, .env
// listed like the rest); symlinks reported, never followed."

type ListLimits = ToolLimits["list_files"];

interface Entry {
  /** Path relative to the listed directory, with `/` between segments. */
  rel: string;
  abs: string;
  type: string;
  mode: number;
  size: number;
  target?: string;
}

function typeOf(info: Stats): string {
  if (info.isSymbolicLink()) return "symlink";
  if (info.isDirectory()) return "dir";
  if (info.isFile()) return "file";
  if (info.isFIFO()) return "fifo";
  if (info.isSocket()) return "socket";
  if (info.isCharacterDevice()) return "chardev";
  if (info.isBlockDevice()) return "blockdev";
  return "other";
}

/** Permission bits as four octal digits (setuid/setgid/sticky included), e.g. `0644`. */
function modeText(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, "0");
}

async function entryOf(abs: string, rel: string, info: Stats): Promise<Entry> {
  const entry: Entry = { rel, abs, type: typeOf(info), mode: info.mode, size: info.size };
  if (info.isSymbolicLink()) {
    try {
      entry.target = await readlink(abs);
    } catch {
      entry.target = "(unreadable)";
    }
  }
  return entry;
}

/** Tree order: a directory's entries right after it, names compared segment by segment. */
function compareTreeOrder(a: Entry, b: Entry): number {
  const left = a.rel.split("/");
  const right = b.rel.split("/");
  for (let i = 0; i < Math.min(left.length, right.length); i += 1) {
    if (left[i] !== right[i]) return left[i] < right[i] ? -1 : 1;
  }
  return left.length - right.length;
}

function formatEntries(entries: Entry[]): string[] {
  const sizeWidth = Math.max(1, ...entries.map((entry) => String(entry.size).length));
  return entries.map((entry) => {
    const name = entry.type === "dir" ? `${entry.rel}/` : entry.rel;
    const target = entry.target !== undefined ? ` -> ${entry.target}` : "";
    return `${entry.type.padEnd(8)}${modeText(entry.mode)} ${String(entry.size).padStart(sizeWidth)}  ${name}${target}`;
  });
}

/** Said when max_depth comes without recursive, which lists one level only. */
export const MAX_DEPTH_WITHOUT_RECURSIVE_NOTE =
  "(max_depth applies only with recursive: true; this lists one level. Add recursive: true to go deeper.)";

export function createListFilesTool(
  definition: ToolDefinitionConfig,
  limits: ListLimits = defaultToolLimits().list_files,
): BuiltinTool {
  async function* execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    const rawPath =
      args.path === undefined || args.path === null
        ? { ok: true as const, value: "." }
        : stringArgument(args, "path");
    if (!rawPath.ok) return yield* fail(ctx, rawPath.error);
    if (rawPath.value.includes("\0")) return yield* fail(ctx, 'argument "path" contains a NUL character');
    const recursive = booleanArgument(args, "recursive", false);
    if (!recursive.ok) return yield* fail(ctx, recursive.error);
    const depthArg = positiveIntegerArgument(args, "max_depth", limits.maxDepth);
    if (!depthArg.ok) return yield* fail(ctx, depthArg.error);
    const maxDepth = recursive.value ? Math.min(depthArg.value, limits.maxDepth) : 1;
    const root = resolveToolPath(ctx.workspaceDir, rawPath.value === "" ? "." : rawPath.value);
    const refusal = confinementRefusal(ctx, root);
    if (refusal !== undefined) return yield* fail(ctx, refusal);
    const shown = shownPath(root);

    const found = await existingPath(root, "list");
    if (!found.ok) return yield* fail(ctx, found.message);
    const rootInfo = found.info;
    ctx.fileReads?.noteListed(root);
    if (!rootInfo.isDirectory()) {
      // A file or a symlink given as the path: its own line (a symlink is reported, not followed).
      const [line] = formatEntries([await entryOf(root, shown, rootInfo)]);
      const hint = rootInfo.isSymbolicLink() ? "\n(a symlink: list its target to see what it points to)" : "";
      return yield* answer(ctx, `${line}${hint}\n[1 entry; truncated: false]`);
    }

    const entries: Entry[] = [];
    const problems: string[] = [];
    const queue: { abs: string; rel: string; depth: number }[] = [{ abs: root, rel: "", depth: 1 }];
    let hitEntryCap = false;
    let unexpanded = 0;
    // Breadth first, so an entry cap keeps the upper levels whole.
    while (queue.length > 0 && !hitEntryCap) {
      if (ctx.signal?.aborted) return { stopReason: "aborted" };
      const dir = queue.shift()!;
      let names: string[];
      try {
        names = (await readdir(dir.abs)).sort();
      } catch (error) {
        problems.push(
          `(cannot list ${dir.rel === "" ? shown : `${dir.rel}/`}: ${fsErrorCode(error) ?? String(error)})`,
        );
        continue;
      }
      for (const name of names) {
        if (entries.length >= limits.maxEntries) {
          hitEntryCap = true;
          break;
        }
        const abs = join(dir.abs, name);
        const rel = dir.rel === "" ? name : `${dir.rel}/${name}`;
        let info: Stats;
        try {
          info = await lstat(abs);
        } catch (error) {
          problems.push(`(cannot stat ${rel}: ${fsErrorCode(error) ?? String(error)})`);
          continue;
        }
        entries.push(await entryOf(abs, rel, info));
        ctx.fileReads?.noteListed(abs);
        // lstat: a symlink to a directory is not a directory here, so loops cannot happen.
        if (info.isDirectory() && recursive.value) {
          if (dir.depth < maxDepth) queue.push({ abs, rel, depth: dir.depth + 1 });
          else unexpanded += 1;
        }
      }
    }
    // Directories queued but never opened because the entry cap was reached.
    const truncated = hitEntryCap || unexpanded > 0 || queue.length > 0;

    entries.sort(compareTreeOrder);
    const lines = [recursive.value ? `${shown} (recursive, depth ${maxDepth}):` : `${shown}:`];
    // A max_depth without recursive would otherwise be ignored without a word.
    if (!recursive.value && args.max_depth !== undefined && args.max_depth !== null) {
      lines.push(MAX_DEPTH_WITHOUT_RECURSIVE_NOTE);
    }
    if (entries.length === 0) lines.push("(empty directory)");
    lines.push(...formatEntries(entries), ...problems);
    const count = `${entries.length} ${entries.length === 1 ? "entry" : "entries"}`;
    if (!truncated) {
      lines.push(`[${count}; truncated: false]`);
    } else {
      const why: string[] = [];
      if (hitEntryCap || queue.length > 0) why.push(`the entry limit (${limits.maxEntries}) was reached`);
      if (unexpanded > 0) {
        why.push(`${unexpanded} director${unexpanded === 1 ? "y" : "ies"} at depth ${maxDepth} not expanded`);
      }
      lines.push(`[${count} shown; truncated: true: ${why.join("; ")}. List a subdirectory to see more.]`);
    }
    return yield* answer(ctx, lines.join("\n"));
  }

  return { name: definition.name, definition, execute };
}
