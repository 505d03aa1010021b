import { isMap, isSeq, parseDocument } from "yaml";

/**
 * The editable fields of one `tools.builtin` entry of a system_config.yaml. Numbers are kept as
 * the text in the form; an empty one means "not set" (the documented default applies).
 */
export interface ToolRow {
  name: string;
  description: string;
  permission: string;
  timeoutMs: string;
  maxOutputLength: string;
  /** Missing or true: the `description` call argument is kept; false filters it out. */
  callDescription: boolean;
  /** Whether the entry declares a `description` argument that `call_description` can toggle. */
  hasDescriptionArgument: boolean;
}

export type ToolRowsResult =
  | { ok: true; rows: ToolRow[] }
  /** The file has no `tools.builtin`: the agent follows the default toolset, there is nothing to edit. */
  | { ok: true; rows: undefined }
  | { ok: false; message: string };

const text = (value: unknown) => (value === undefined || value === null ? "" : String(value));

/** The rows of `tools.builtin`, as the settings page edits them. */
export function readToolRows(yaml: string): ToolRowsResult {
  const document = parseDocument(yaml);
  if (document.errors.length > 0)
    return { ok: false, message: document.errors.map((e) => e.message).join("\n") };
  const list = document.getIn(["tools", "builtin"], true);
  if (list === undefined) return { ok: true, rows: undefined };
  if (!isSeq(list)) return { ok: false, message: "tools.builtin is not a list" };
  const rows: ToolRow[] = [];
  for (const [index, node] of list.items.entries()) {
    if (!isMap(node)) return { ok: false, message: `tools.builtin[${index}] is not a mapping` };
    const entry = node.toJSON() as Record<string, unknown>;
    const parameters = entry.parameters as { properties?: Record<string, unknown> } | undefined;
    rows.push({
      name: text(entry.name),
      description: text(entry.description),
      permission: text(entry.permission),
      timeoutMs: text(entry.timeoutMs),
      maxOutputLength: text(entry.maxOutputLength),
      callDescription: entry.call_description !== false,
      hasDescriptionArgument:
        entry.call_description !== undefined || Object.hasOwn(parameters?.properties ?? {}, "description"),
    });
  }
  return { ok: true, rows };
}

/** A number typed in the form: as a number when it looks like one, else as typed (the server says why not). */
function numberField(value: string): number | string {
  const trimmed = value.trim();
  return /^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : trimmed;
}

/**
 * The file with the rows' fields written into its existing `tools.builtin` entries, matched by
 * position; everything else (comments, parameters, other sections) stays as written. Rows are
 * never added or removed here: "the settings UI edits rows but adds none". Without a change the
 * text comes back as it was (re-serialising could still respace flow collections).
 */
export function writeToolRows(yaml: string, rows: readonly ToolRow[]): string {
  const document = parseDocument(yaml);
  const list = document.getIn(["tools", "builtin"], true);
  if (!isSeq(list) || list.items.length !== rows.length) {
    throw new Error("the file's tools.builtin changed since it was loaded; reload the page");
  }
  let changed = false;
  rows.forEach((row, index) => {
    const path = ["tools", "builtin", index];
    const current = (list.items[index] as { toJSON(): Record<string, unknown> }).toJSON();
    const set = (field: string, value: unknown) => {
      if (current[field] === value) return;
      document.setIn([...path, field], value);
      changed = true;
    };
    set("description", row.description);
    set("permission", row.permission);
    for (const field of ["timeoutMs", "maxOutputLength"] as const) {
      const value = row[field].trim();
      if (value === "") {
        if (field in current) {
          document.deleteIn([...path, field]);
          changed = true;
        }
      } else set(field, numberField(value));
    }
    if (!row.callDescription) set("call_description", false);
    else if (current.call_description === false) set("call_description", true);
  });
  return changed ? document.toString({ lineWidth: 0 }) : yaml;
}
