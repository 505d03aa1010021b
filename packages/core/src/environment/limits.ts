// Every limit and default of the tool execution contract and of the file and image tools, each
// with the sentence of the contract (spec/tools-and-approval.md) or of the project issue it
// implements. Tools and the Environment import these; nothing else spells the numbers.

// "timeoutMs: Per-call timeout (ms), default 120000; <=0 disables" and "head-kept truncation once
// output exceeds maxOutputLength (default 16000 characters)": the defaults belong to the tool
// definitions, so they live in @penguin/state.
export { DEFAULT_MAX_OUTPUT_LENGTH, DEFAULT_TOOL_TIMEOUT_MS } from "@penguin/state";

/**
 * After an interrupt or a timeout the tool gets this long to stop on its own (a command reports
 * the signal that ended it) before the Environment closes the call without it: the user
 * interrupt and the timeout must end a call even when a tool ignores its signal.
 */
export const ABORT_GRACE_MS = 1_000;

/**
 * "One call stores at most 8 MiB (the production byte limit is one byte lower so read_file remains
 * below its 8 MiB scan cap)".
 */
export const READ_FILE_SCAN_CAP_BYTES = 8 * 1024 * 1024;
export const ARCHIVE_BUDGET_BYTES = READ_FILE_SCAN_CAP_BYTES - 1;

/**
 * "larger output keeps bounded head/tail windows in the file with an explicit middle-gap marker":
 * the head window takes this share of the budget, the tail the rest minus room for the marker.
 */
export const ARCHIVE_HEAD_SHARE = 0.5;
/** Bytes kept free in a windowed archive for the middle-gap marker line. */
export const ARCHIVE_GAP_MARKER_RESERVE_BYTES = 256;

/** An archive file name is the tool call id, made safe for a file system and cut to this length. */
export const ARCHIVE_NAME_MAX_CHARS = 100;

// read_file's paging defaults and the image size limit are numbers the tools' descriptions
// state, so they are defined once with the definitions (@penguin/state, tools/).
export { IMAGE_MAX_BYTES, READ_FILE_DEFAULT_LIMIT, READ_FILE_DEFAULT_OFFSET } from "@penguin/state";
/** "overlong single lines are truncated": a line longer than this many characters is cut. */
export const READ_FILE_MAX_LINE_CHARS = 2_000;
/** `cat -n` right-aligns the line number in a field this wide. */
export const READ_FILE_LINE_NUMBER_WIDTH = 6;
/** Bytes read per step while streaming a file's lines (a 100 MB file is never held whole). */
export const READ_FILE_CHUNK_BYTES = 64 * 1024;
/**
 * read_file stops adding lines this many characters before the tool's own `maxOutputLength`, so
 * a page always fits and its continuation note is never cut by the Environment's truncation.
 */
export const READ_FILE_OUTPUT_RESERVE_CHARS = 200;

/** "replace_all storms are capped at a few hunks plus an "…and N more replacements" note". */
export const EDIT_MAX_HUNKS = 5;
/** Lines of context around each change in edit_file and write_file diffs (git's default). */
export const DIFF_CONTEXT_LINES = 3;
/**
 * Above this edit distance (in lines) the diff is not computed at all, so a huge rewrite cannot
 * stall the event loop; the tools then report the +X/−Y summary instead.
 */
export const DIFF_MAX_EDIT_LENGTH = 10_000;
/**
 * "An overwrite also shows a small unified diff against the previous content, or a one-line
 * +X/−Y summary when the change is large": a diff longer than this many lines is "large".
 */
export const WRITE_DIFF_MAX_LINES = 60;
/** Files larger than this are not diffed by write_file/edit_file (only the summary is shown). */
export const DIFF_MAX_FILE_BYTES = 2 * 1024 * 1024;

/** An http(s) image source must answer within this time (inside the tool's own timeout). */
export const IMAGE_FETCH_TIMEOUT_MS = 30_000;
/** "prompt?: string; // what to ask about the image; defaults to a detailed description". */
export const DEFAULT_DESCRIBE_IMAGE_PROMPT =
  "Describe this image in detail: its content, any text it contains (verbatim), layout, colours and notable details.";

/** edit_file lists the lines of at most this many matches when old_string is not unique. */
export const EDIT_MAX_LISTED_MATCHES = 10;
/** Files with more lines than this are not searched for a whitespace-insensitive near match. */
export const EDIT_NEAR_MATCH_MAX_LINES = 50_000;

/** A resumed session may reuse a call id: the archive tries `<id>.txt`, `<id>-2.txt`, … this many names. */
export const ARCHIVE_NAME_ATTEMPTS = 100;

/** Missing-path hints name at most this many similar entries of the folder. */
export const PATH_HINT_MAX_SUGGESTIONS = 3;
/** Folders with more entries than this are not scanned for similar names. */
export const PATH_HINT_MAX_DIR_ENTRIES = 5_000;
/** Names longer than this are compared by prefix only (edit distance is quadratic). */
export const PATH_HINT_MAX_COMPARED_CHARS = 96;
