import { readFileSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { ToolCall, ToolCallContent, ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";
import { readCallArguments, summarizeToolCall } from "../render/tool-call-summary.js";

/** The ACP kind of each Penguin tool (the editor picks an icon by it); the rest are "other". */
const KIND_OF_TOOL: Record<string, ToolKind> = {
  read_file: "read",
  read_image: "read",
  describe_image: "read",
  list_files: "search",
  search_text: "search",
  search_executions: "search",
  edit_file: "edit",
  write_file: "edit",
  apply_patch: "edit",
  make_directory: "edit",
  move_path: "move",
  remove_path: "delete",
  exec_command: "execute",
  input_command: "execute",
  run_command: "execute",
  web_fetch: "fetch",
};

export function toolKindOf(name: string): ToolKind {
  return KIND_OF_TOOL[name] ?? "other";
}

/** A file whose text is read for a diff: larger ones get no diff (the editor shows the path). */
const DIFF_MAX_BYTES = 1_000_000;

/** What ACP shows of one call before it runs: its title, kind, the files it touches and a diff. */
export interface CallView {
  title: string;
  kind: ToolKind;
  locations: ToolCallLocation[];
  /** An edit's change, shown with the call and again with its result. */
  diff?: ToolCallContent;
  rawInput?: Record<string, unknown>;
}

/** The fields of a call not yet run, as a `tool_call` update and a permission request show it. */
export function pendingCallFields(toolCallId: string, view: CallView): ToolCall {
  return {
    toolCallId,
    title: view.title,
    kind: view.kind,
    status: "pending" as const,
    locations: view.locations,
    ...(view.diff ? { content: [view.diff] } : {}),
    ...(view.rawInput ? { rawInput: view.rawInput } : {}),
  };
}

/**
 * The call as an editor shows it: titled by the description the model gave it (else by the
 * terminal's one-line summary), its paths made absolute against the session's current folder.
 */
export function viewOfCall(
  name: string,
  argumentsJson: string,
  cwd: string,
  editorText?: EditorText,
): CallView {
  const args = readCallArguments(argumentsJson).object;
  const described = typeof args?.description === "string" ? args.description.trim() : "";
  const title = described !== "" ? described : summarizeToolCall(name, argumentsJson).title;
  const view: CallView = { title, kind: toolKindOf(name), locations: [] };
  if (!args) return view;
  view.rawInput = args;
  for (const key of ["file_path", "path", "source", "destination"]) {
    const value = args[key];
    if (typeof value === "string" && value !== "") view.locations.push({ path: absolute(value, cwd) });
  }
  const diff = diffOf(name, args, cwd, editorText);
  if (diff) view.diff = diff;
  return view;
}

function absolute(path: string, cwd: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/**
 * The text of a file as the editor had it when the agent last read or wrote it there (see
 * acp/editor-files.ts), when the session's files go through the editor.
 */
export type EditorText = (path: string) => string | undefined;

/** The file's text now, null when it does not exist, undefined when it cannot be shown. */
function currentText(path: string, editorText: EditorText | undefined): string | null | undefined {
  const edited = editorText?.(path);
  if (edited !== undefined) return edited;
  try {
    if (statSync(path).size > DIFF_MAX_BYTES) return undefined;
    return readFileSync(path, "utf8");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? null : undefined;
  }
}

/**
 * write_file's and edit_file's change as a whole-file diff, read before the call runs: the new
 * content of a write; for an edit, the file with its text replaced as the tool will (the first
 * occurrence, or all with replace_all). An edit of text not in the file gets no diff: the tool
 * will refuse it.
 */
function diffOf(
  name: string,
  args: Record<string, unknown>,
  cwd: string,
  editorText: EditorText | undefined,
): ToolCallContent | undefined {
  const file = args.file_path;
  if (typeof file !== "string" || file === "") return undefined;
  const path = absolute(file, cwd);
  if (name === "write_file" && typeof args.content === "string") {
    const before = currentText(path, editorText);
    if (before === undefined) return undefined;
    return { type: "diff", path, oldText: before, newText: args.content };
  }
  if (name === "edit_file" && typeof args.old_string === "string" && typeof args.new_string === "string") {
    const before = currentText(path, editorText);
    if (typeof before !== "string" || args.old_string === "" || !before.includes(args.old_string))
      return undefined;
    const after =
      args.replace_all === true
        ? before.split(args.old_string).join(args.new_string)
        : before.replace(args.old_string, () => args.new_string as string);
    return { type: "diff", path, oldText: before, newText: after };
  }
  return undefined;
}
