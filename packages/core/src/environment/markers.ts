import { REDACTED } from "@penguin/state";

// The bracketed markers the Environment adds to tool output. The model reads them, the UIs show
// them, tests pin them: each is spelled once, here.

/** "never-empty output ([no output] is substituted when a tool produced nothing)". */
export const NO_OUTPUT_MARKER = "[no output]";

/** "[tool error] …" on throws. */
export const TOOL_ERROR_PREFIX = "[tool error]";

/**
 * Replaces every configured secret value in tool output before anyone sees it; the same marker
 * the log files use, so a redaction reads the same everywhere.
 */
export const REDACTED_MARKER = REDACTED;

/** "head-kept truncation … with a `[output truncated: exceeded N chars]` note". */
export function truncationMarker(limit: number): string {
  return `[output truncated: exceeded ${limit} chars]`;
}

export function timeoutMarker(timeoutMs: number): string {
  return `[tool call timed out after ${timeoutMs} ms]`;
}

export const INTERRUPTED_MARKER = "[tool call interrupted by user]";

/** "A deny produces a synthetic aborted tool_call_output (Tool call denied by user.)". */
export const DENIED_BY_USER_TEXT = "Tool call denied by user.";
export const DENIED_BY_POLICY_TEXT = "Tool call denied by policy.";
/** A call that needed a human's approval when nobody could be asked: not the user's refusal. */
export const DENIED_NO_TERMINAL_TEXT =
  "Tool call denied: it needs a human's approval and there is no terminal to ask, so nobody saw it.";

/**
 * The archive note: "a note with the absolute path … always the last element inside the bracket".
 * `exact` files hold every byte received; `windowed` ones the head and tail windows.
 */
export function archiveSavedNote(path: string, totalBytes: number, windowed: boolean): string {
  return windowed
    ? `[full output was ${totalBytes} bytes; its first and last parts are saved (read with read_file offset/limit, or rg/tail) at: ${path}]`
    : `[full output (${totalBytes} bytes) saved; read it with read_file offset/limit at: ${path}]`;
}

/** "the visible note and stderr warning carry only a short error code". */
export function archiveFailedNote(code: string): string {
  return `[full output could not be saved: ${code}]`;
}

export function archiveFailedWarning(toolName: string, code: string): string {
  return `penguin: tool ${toolName}: could not save its truncated output (${code})`;
}

/** "bounded head/tail windows in the file with an explicit middle-gap marker". */
export function archiveGapMarker(omittedBytes: number): string {
  return `\n[... ${omittedBytes} bytes of output omitted here: only the first and last parts were kept ...]\n`;
}
