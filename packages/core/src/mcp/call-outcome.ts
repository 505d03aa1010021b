import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ProgressUpdate } from "./progress.js";

/** How one tool call ended, as a value (the tool turns it into the model's output). */
export type McpCallOutcome =
  | { status: "answered"; result: CallToolResult }
  /** The caller's signal ended it (the Environment's timeout or the user's interrupt). */
  | { status: "interrupted" }
  /** The server cannot take calls any more (a stdio server that stopped, a closed session). */
  | { status: "unavailable"; reason: string }
  /** A remote server whose connection was lost could not be connected to again. */
  | { status: "unreachable"; reason: string }
  /** The connection broke during the call; `final`: the server cannot be reached again. */
  | { status: "stopped"; reason: string; final: boolean }
  /** The server had forgotten the session: connected again, but the call was not repeated. */
  | { status: "not-repeated"; reason: string }
  /** The server answered the request with an error. */
  | { status: "error"; reason: string };

export interface CallOptions {
  /** The Environment's timeout and the user's interrupt. */
  signal?: AbortSignal;
  /** A read-only call may be sent again after the server forgot the session. */
  readOnly: boolean;
  /** Gets the server's progress notifications (a progress token is sent with the call). */
  onProgress?: (update: ProgressUpdate) => void;
}
