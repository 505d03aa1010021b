import { onFirstUse } from "@penguin/protocol";
import { z } from "zod";
import { configDefault } from "./config-defaults.js";
import { JOB_TOOL_DEFINITIONS, jobToolLimitsShape } from "./job-tool-definitions.js";
import { DEFAULT_MAX_OUTPUT_LENGTH, type ToolDefinitionConfig } from "./tool-definitions.js";
import { AGENT_TREE_TOOL_DEFINITIONS } from "./tools/agents.js";
import { deepFreeze, type JsonSchema, objectSchema } from "./tools/definition-parts.js";
import { EXECUTION_TOOL_DEFINITIONS } from "./tools/executions.js";
import { JOURNAL_TOOL_DEFINITIONS } from "./tools/journal.js";
import { MESSAGING_TOOL_DEFINITIONS } from "./tools/messaging.js";
import { METRICS_TOOL_DEFINITIONS } from "./tools/metrics.js";

// The extended toolset ("Penguin offers the extended capabilities as opt-in entries of the same
// built-in registry, named in snake_case"): its complete definitions, the `tools.preset` that
// selects it, the limits behind each bound (`tools.limits`), and the hash-guarded writes
// (`tools.writeGuard`) that the extended preset turns on.

/** "a `tools.preset: extended` key selects the nine core tools plus all of these". */
export const TOOL_PRESETS = ["core", "extended"] as const;
export type ToolPreset = (typeof TOOL_PRESETS)[number];
/** Without `tools.preset`, an agent gets the nine core tools. */
export const DEFAULT_TOOL_PRESET: ToolPreset = "core";

// ---- Limits ("Every cap and default of these tools … is a config key with a documented default").

/** list_files: entries one call reports at most, recursive or not. */
export const DEFAULT_LIST_FILES_MAX_ENTRIES = 1_000;
/** list_files: how deep `recursive` descends by default, and the most a call may ask for. */
export const DEFAULT_LIST_FILES_MAX_DEPTH = 8;
/** search_text: matching lines reported at most; the rest are counted. */
export const DEFAULT_SEARCH_TEXT_MAX_MATCHES = 200;
/** search_text: files larger than this are skipped while walking ("oversized files skipped"). */
export const DEFAULT_SEARCH_TEXT_MAX_FILE_BYTES = 10 * 1024 * 1024;
/** search_text: files one call looks at at most, so a search of `/` ends. */
export const DEFAULT_SEARCH_TEXT_MAX_FILES = 20_000;
/** search_text: a matching line longer than this many characters is cut in the result. */
export const DEFAULT_SEARCH_TEXT_MAX_LINE_CHARS = 400;
/**
 * search_text: how long a regular expression may run on one file (it runs in a worker thread);
 * past it the search stops and says so, since a pattern like `(a+)+$` can backtrack for hours.
 */
export const DEFAULT_SEARCH_TEXT_REGEX_TIMEOUT_MS = 10_000;
/** apply_patch: files larger than this are not updated (a patch is for text files). */
export const DEFAULT_APPLY_PATCH_MAX_FILE_BYTES = 10 * 1024 * 1024;
/** web_fetch: response bytes read at most; the rest of a larger body is cut. */
export const DEFAULT_WEB_FETCH_MAX_BYTES = 5 * 1024 * 1024;
/** web_fetch: how long the request may take, headers and body ("size and time limits"). */
export const DEFAULT_WEB_FETCH_TIMEOUT_MS = 30_000;
/** read_file (rich): a PDF larger than this is not opened ("size/page caps as config keys"). */
export const DEFAULT_READ_FILE_PDF_MAX_BYTES = 20 * 1024 * 1024;
/** read_file (rich): pages whose text is extracted at most; later pages are named, not read. */
export const DEFAULT_READ_FILE_PDF_MAX_PAGES = 300;

/** The schema of `tools.limits`, built on the first call (configuration is checked only when read). */
export const toolLimitsSchemas = onFirstUse(() => {
  const positiveInt = z.number().int().positive();

  const ToolLimitsSchema = z.strictObject({
    list_files: z
      .strictObject({
        maxEntries: positiveInt.default(DEFAULT_LIST_FILES_MAX_ENTRIES),
        maxDepth: positiveInt.default(DEFAULT_LIST_FILES_MAX_DEPTH),
      })
      .default(() => ({
        maxEntries: DEFAULT_LIST_FILES_MAX_ENTRIES,
        maxDepth: DEFAULT_LIST_FILES_MAX_DEPTH,
      })),
    search_text: z
      .strictObject({
        maxMatches: positiveInt.default(DEFAULT_SEARCH_TEXT_MAX_MATCHES),
        maxFileBytes: positiveInt.default(DEFAULT_SEARCH_TEXT_MAX_FILE_BYTES),
        maxFiles: positiveInt.default(DEFAULT_SEARCH_TEXT_MAX_FILES),
        maxLineChars: positiveInt.default(DEFAULT_SEARCH_TEXT_MAX_LINE_CHARS),
        regexTimeoutMs: positiveInt.default(DEFAULT_SEARCH_TEXT_REGEX_TIMEOUT_MS),
      })
      .default(() => ({
        maxMatches: DEFAULT_SEARCH_TEXT_MAX_MATCHES,
        maxFileBytes: DEFAULT_SEARCH_TEXT_MAX_FILE_BYTES,
        maxFiles: DEFAULT_SEARCH_TEXT_MAX_FILES,
        maxLineChars: DEFAULT_SEARCH_TEXT_MAX_LINE_CHARS,
        regexTimeoutMs: DEFAULT_SEARCH_TEXT_REGEX_TIMEOUT_MS,
      })),
    apply_patch: z
      .strictObject({ maxFileBytes: positiveInt.default(DEFAULT_APPLY_PATCH_MAX_FILE_BYTES) })
      .default(() => ({ maxFileBytes: DEFAULT_APPLY_PATCH_MAX_FILE_BYTES })),
    web_fetch: z
      .strictObject({
        maxBytes: positiveInt.default(DEFAULT_WEB_FETCH_MAX_BYTES),
        timeoutMs: positiveInt.default(DEFAULT_WEB_FETCH_TIMEOUT_MS),
      })
      .default(() => ({ maxBytes: DEFAULT_WEB_FETCH_MAX_BYTES, timeoutMs: DEFAULT_WEB_FETCH_TIMEOUT_MS })),
    read_file: z
      .strictObject({
        pdfMaxBytes: positiveInt.default(DEFAULT_READ_FILE_PDF_MAX_BYTES),
        pdfMaxPages: positiveInt.default(DEFAULT_READ_FILE_PDF_MAX_PAGES),
      })
      .default(() => ({
        pdfMaxBytes: DEFAULT_READ_FILE_PDF_MAX_BYTES,
        pdfMaxPages: DEFAULT_READ_FILE_PDF_MAX_PAGES,
      })),
    ...jobToolLimitsShape(),
  });
  return { ToolLimitsSchema };
});
type Schemas = ReturnType<typeof toolLimitsSchemas>;

/** The limits of the extended tools, every key filled. */
export type ToolLimits = z.output<Schemas["ToolLimitsSchema"]>;
export type ToolLimitsInput = z.input<Schemas["ToolLimitsSchema"]>;

/** The documented defaults of every limit. */
export function defaultToolLimits(): ToolLimits {
  return configDefault("toolLimits");
}

// ---- Definitions.

const pathArgument = (what: string): JsonSchema => ({
  type: "string",
  description: `${what}: absolute, or relative to the workspace.`,
});

/**
 * The extended tools of this release. Every byte of these descriptions is sent with every
 * request, so they say only what the model needs to act.
 */
export const EXTENDED_TOOL_DEFINITIONS: readonly ToolDefinitionConfig[] = deepFreeze([
  {
    name: "list_files",
    description:
      "List a directory: type, permission mode, size and name of each entry. Nothing is hidden (dotfiles, .git, .env are listed). Symlinks are shown with their target and never followed. With recursive, lists the tree below it, bounded in depth and entries; the last line says whether the listing was truncated.",
    parameters: objectSchema(
      {
        path: { ...pathArgument("The directory"), default: "." },
        recursive: { type: "boolean", default: false, description: "List subdirectories too." },
        max_depth: {
          type: "integer",
          minimum: 1,
          description: "With recursive: levels to descend (1 = only the directory's own entries).",
        },
      },
      [],
    ),
    permission: "r",
    timeoutMs: 30_000,
    maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
  },
  {
    name: "search_text",
    description:
      "Search text files for a literal string, or a JavaScript regular expression with regex: true. path is a file or a directory (searched recursively; symlinks are not followed, .git is skipped). Binary, unreadable and oversized files are skipped. Returns path:line:text for each matching line, capped, with a count of matches left out.",
    parameters: objectSchema(
      {
        pattern: { type: "string", minLength: 1 },
        regex: { type: "boolean", default: false, description: "Treat pattern as a regular expression." },
        ignore_case: { type: "boolean", default: false },
        path: { ...pathArgument("File or directory to search"), default: "." },
        include: {
          type: "array",
          items: { type: "string" },
          description: 'Globs matched against file base names, e.g. ["*.ts", "*.md"]; default all files.',
        },
      },
      ["pattern"],
    ),
    permission: "r",
    timeoutMs: 60_000,
    maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
  },
  {
    name: "apply_patch",
    description: [
      "Apply one patch to several files, all or nothing: every change is checked first, and if any fails nothing is written. Format:",
      "*** Begin Patch",
      "*** Add File: path/new.txt",
      "+each line of the new file",
      "*** Update File: path/old.txt",
      "*** Move to: path/renamed.txt   (optional)",
      "@@ optional text of a line above the change",
      " unchanged context line",
      "-removed line",
      "+added line",
      "*** Delete File: path/gone.txt",
      "*** End Patch",
      "Context and removed lines must match the file exactly; use about 3 lines of context around each change.",
    ].join("\n"),
    parameters: objectSchema(
      { patch: { type: "string", description: "The whole patch, from *** Begin Patch to *** End Patch." } },
      ["patch"],
    ),
    permission: "rw",
    timeoutMs: 30_000,
    maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
  },
  {
    name: "move_path",
    description:
      "Rename or move a file or directory. Never overwrites: fails if the destination exists. Creates missing parent directories of the destination.",
    parameters: objectSchema(
      { source: pathArgument("What to move"), destination: pathArgument("The new path") },
      ["source", "destination"],
    ),
    permission: "rw",
    timeoutMs: 30_000,
    maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
  },
  {
    name: "make_directory",
    description: "Create a directory and any missing parents. A directory that already exists is a success.",
    parameters: objectSchema({ path: pathArgument("The directory") }, ["path"]),
    permission: "rw",
    timeoutMs: 30_000,
    maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
  },
  {
    name: "remove_path",
    description:
      "Remove a file, a symlink (the link itself, never its target) or a directory. A non-empty directory needs recursive: true. Removal is permanent. The workspace root and / cannot be removed.",
    parameters: objectSchema(
      {
        path: pathArgument("What to remove"),
        recursive: { type: "boolean", default: false, description: "Remove a directory with its contents." },
      },
      ["path"],
    ),
    permission: "rw",
    timeoutMs: 60_000,
    maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
  },
  ...JOB_TOOL_DEFINITIONS,
  {
    name: "web_fetch",
    description:
      "Fetch an http(s) URL and return the response body as text (HTML as its readable text). Images, PDFs and other binary content are refused. A 4xx or 5xx status is reported with the body, not as a failure.",
    parameters: objectSchema({ url: { type: "string", description: "An http:// or https:// URL." } }, [
      "url",
    ]),
    permission: "r",
    timeoutMs: 60_000,
    maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
  },
  {
    name: "use_skill",
    description:
      "Load one skill's full instructions by its name (the skills are listed in the system prompt, and change_directory may report more). Files beside its SKILL.md are not loaded: read them when the instructions say so.",
    parameters: objectSchema({ name: { type: "string", minLength: 1, description: "The skill's name." } }, [
      "name",
    ]),
    permission: "r",
    timeoutMs: 30_000,
    maxOutputLength: 50_000,
  },
  {
    name: "change_directory",
    description:
      "Change your current directory: later relative paths and commands start there. Returns the target's AGENTS.md, rules (.agents/rules/*.md), skills and hooks, which apply from then on. A shell cd does not persist, so use this to move. Call it alone in its tool round.",
    parameters: objectSchema({ path: pathArgument("The directory") }, ["path"]),
    permission: "r",
    // It waits for the model's reply to end (it must be alone in its round) before it moves.
    timeoutMs: 120_000,
    maxOutputLength: 60_000,
  },
  ...MESSAGING_TOOL_DEFINITIONS,
  ...AGENT_TREE_TOOL_DEFINITIONS,
  ...METRICS_TOOL_DEFINITIONS,
  ...EXECUTION_TOOL_DEFINITIONS,
  ...JOURNAL_TOOL_DEFINITIONS,
]);

export const EXTENDED_TOOL_NAMES: readonly string[] = EXTENDED_TOOL_DEFINITIONS.map((tool) => tool.name);

// ---- Hash-guarded writes.

/** "`write_file`/`remove_path` also need that read's hash as `expected_sha256`". */
export const EXPECTED_SHA256_PROPERTY = "expected_sha256";
/** The tools that take `expected_sha256` while the write guard is on. */
export const HASH_GUARDED_TOOLS: readonly string[] = ["write_file", "remove_path"];

/** What the model is told, per tool, while the write guard is on. */
const WRITE_GUARD_NOTES: Readonly<Record<string, string>> = {
  read_file: " Its last line gives the sha256 of the whole file.",
  list_files: "",
  edit_file: " The file must have been read with read_file (or listed by list_files) earlier in this task.",
  write_file:
    " To replace an existing file, read it with read_file earlier in this task and pass the sha256 it reported as expected_sha256; a new file needs neither.",
  apply_patch:
    " Files it updates, moves or deletes must have been read with read_file (or listed by list_files) earlier in this task.",
  move_path: " A file must have been read (or listed) earlier in this task.",
  remove_path:
    " A file must have been read with read_file earlier in this task, and its sha256 passed as expected_sha256; a directory must have been listed.",
};

/**
 * "Hash-guarded writes, a per-agent setting (`tools.writeGuard`), off by default so the core
 * contract stays as specified, on in the extended preset".
 */
export function writeGuardEnabled(tools: { writeGuard?: boolean; preset?: ToolPreset }): boolean {
  return tools.writeGuard ?? tools.preset === "extended";
}

/**
 * The definition the model sees while the write guard is on: the rule in its description, and
 * `expected_sha256` among the arguments of `write_file` and `remove_path`. A copy, like
 * `applyCallDescription`: the config and its file are never changed.
 */
export function applyWriteGuard(definition: ToolDefinitionConfig): ToolDefinitionConfig {
  const copy = structuredClone(definition);
  const note = WRITE_GUARD_NOTES[definition.name];
  if (note === undefined) return copy;
  if (note !== "" && !copy.description.includes(note.trim())) copy.description += note;
  if (HASH_GUARDED_TOOLS.includes(definition.name)) {
    const properties = { ...(copy.parameters.properties ?? {}) };
    if (properties[EXPECTED_SHA256_PROPERTY] === undefined) {
      properties[EXPECTED_SHA256_PROPERTY] = {
        type: "string",
        description: "The sha256 (hex) reported when you read the file in this task.",
      };
    }
    copy.parameters = { ...copy.parameters, properties };
  }
  return copy;
}

// ---- Rich reads.

/**
 * "In the extended preset `read_file` also returns an image as image content (vision models) and
 * extracts the text of a PDF, where the core contract refuses binary content": a per-agent
 * setting (`tools.readFileRich`), on in the extended preset, off otherwise.
 */
export function readFileRichEnabled(tools: { readFileRich?: boolean; preset?: ToolPreset }): boolean {
  return tools.readFileRich ?? tools.preset === "extended";
}

/** What the model is told about read_file while rich reads are on. */
export const READ_FILE_RICH_NOTE =
  " Exceptions: a PDF is read as its text, paged the same way, with a --- page N of M --- line starting each page; a png, jpeg, gif or webp image is returned as an image when you can see images.";

/**
 * The read_file definition the model sees while rich reads are on: the exceptions in its
 * description. A copy; any other definition is returned as a copy unchanged.
 */
export function applyRichRead(definition: ToolDefinitionConfig): ToolDefinitionConfig {
  const copy = structuredClone(definition);
  if (definition.name === "read_file" && !copy.description.includes(READ_FILE_RICH_NOTE.trim())) {
    copy.description += READ_FILE_RICH_NOTE;
  }
  return copy;
}
