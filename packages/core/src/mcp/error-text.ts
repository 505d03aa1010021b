import type { McpServer } from "@penguin/state";
import { MCP_REASON_MAX_CHARS } from "./limits.js";

// How MCP failures read in events, warnings and tool outputs: one bounded line, with the detail
// the SDK and fetch hide and, for a stdio server that cannot start, the program it tried.

/** One line, bounded: reasons go into events, warnings and tool outputs. */
export function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MCP_REASON_MAX_CHARS ? `${flat.slice(0, MCP_REASON_MAX_CHARS - 1)}…` : flat;
}

/** An error as a reader can act on it (the SDK and fetch hide the useful part in `code`/`cause`). */
export function describeError(error: unknown, config?: McpServer["config"]): string {
  if (!(error instanceof Error)) return oneLine(String(error));
  const code = (error as NodeJS.ErrnoException).code;
  if (config?.transport === "stdio" && code === "ENOENT") {
    return `cannot start "${config.command}": no such program (ENOENT)`;
  }
  if (config?.transport === "stdio" && code === "EACCES") {
    return `cannot start "${config.command}": permission denied (EACCES)`;
  }
  const cause = (error as { cause?: unknown }).cause;
  const detail =
    cause instanceof Error
      ? ((cause as NodeJS.ErrnoException).code ?? cause.message)
      : typeof cause === "string"
        ? cause
        : undefined;
  const message = error.message || error.name;
  return oneLine(detail && !message.includes(detail) ? `${message} (${detail})` : message);
}
