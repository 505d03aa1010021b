import type { McpCallOutcome } from "./call-outcome.js";

// What the model reads when an MCP call did not get an answer. Each text says what happened to
// the call and what the server's tools can do next, so the model can decide to retry or move on.

/** What the model reads when a server cannot take calls. */
export function unavailableText(server: string, reason: string): string {
  return `The MCP server "${server}" is unavailable: ${reason}. Its tools cannot be used in this session; do without them.`;
}

type Failure = Exclude<McpCallOutcome, { status: "answered" } | { status: "interrupted" }>;

/** The output of a call to `tool` of `server` that ended without the server's answer. */
export function callFailureText(server: string, tool: string, failure: Failure): string {
  switch (failure.status) {
    case "unavailable":
      return unavailableText(server, failure.reason);
    case "stopped":
      return failure.final
        ? `The MCP server "${server}" stopped during the call: ${failure.reason}. The call did not finish, and the server's tools cannot be used for the rest of this session.`
        : `The MCP server "${server}" stopped during the call: ${failure.reason}. The call did not finish; the next call to one of its tools connects to the server again.`;
    case "unreachable":
      return `The MCP server "${server}" is unreachable: ${failure.reason}. The call was not made; the next call to one of its tools tries to connect again.`;
    case "not-repeated":
      return `The MCP server "${server}" no longer knew this session (it restarted: ${failure.reason}). Penguin connected to it again but did not repeat the call, because "${tool}" is not read-only: call it again if it is still needed.`;
    case "error":
      return `The MCP server "${server}" answered the call with an error: ${failure.reason}`;
  }
}
