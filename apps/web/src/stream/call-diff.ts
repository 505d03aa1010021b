import type { ToolCallView } from "./timeline.js";

export type DiffLineKind = "file" | "hunk" | "add" | "remove" | "context" | "note";

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
}

export interface CallDiff {
  lines: DiffLine[];
  added: number;
  removed: number;
}

function withCounts(lines: DiffLine[]): CallDiff | undefined {
  if (!lines.some((line) => line.kind === "add" || line.kind === "remove")) return undefined;
  const count = (kind: DiffLineKind) => lines.filter((line) => line.kind === kind).length;
  return { lines, added: count("add"), removed: count("remove") };
}

/**
 * The unified diff edit_file and write_file print after their headline ("Replaced 1 occurrence
 * in a.ts", "Overwrote …"): from its `--- path` / `+++ path` header to the end of the output.
 * A line after the hunks that is none of +, - or space ("…and 2 more replacements") is a note.
 */
export function diffOfOutput(output: string): CallDiff | undefined {
  const lines = output.split("\n");
  const start = lines.findIndex((line, i) => line.startsWith("--- ") && lines[i + 1]?.startsWith("+++ "));
  if (start < 0) return undefined;
  return withCounts(
    lines.slice(start).map((text, i): DiffLine => {
      if (i < 2) return { kind: "file", text };
      if (text.startsWith("@@")) return { kind: "hunk", text };
      if (text.startsWith("+")) return { kind: "add", text };
      if (text.startsWith("-")) return { kind: "remove", text };
      if (text.startsWith(" ") || text === "") return { kind: "context", text };
      return { kind: "note", text };
    }),
  );
}

/**
 * apply_patch answers with one summary line per file; the change itself is its `patch` argument
 * (`*** Update File: path`, `@@` anchors, then +, - and space lines), shown once the call is done.
 */
export function diffOfPatch(patch: string): CallDiff | undefined {
  return withCounts(
    patch
      .replace(/\n$/, "")
      .split("\n")
      .map((text): DiffLine => {
        if (text.startsWith("*** ")) return { kind: "file", text };
        if (text.startsWith("@@")) return { kind: "hunk", text };
        if (text.startsWith("+")) return { kind: "add", text };
        if (text.startsWith("-")) return { kind: "remove", text };
        return { kind: "context", text };
      }),
  );
}

function patchArgument(argumentsJson: string): string | undefined {
  try {
    const args = JSON.parse(argumentsJson) as { patch?: unknown };
    return typeof args.patch === "string" ? args.patch : undefined;
  } catch {
    return undefined;
  }
}

/** The change a finished file-editing call made, as diff lines; undefined for other calls. */
export function diffOfCall(call: ToolCallView): CallDiff | undefined {
  if (call.output === undefined || call.outputStreaming) return undefined;
  if (call.stopReason && call.stopReason !== "completed") return undefined;
  switch (call.name) {
    case "edit_file":
    case "write_file":
      return diffOfOutput(call.output);
    case "apply_patch": {
      if (!call.output.startsWith("Applied the patch")) return undefined;
      const patch = patchArgument(call.arguments);
      return patch === undefined ? undefined : diffOfPatch(patch);
    }
    default:
      return undefined;
  }
}
