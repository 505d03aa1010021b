// A streamable-HTTP server that restarted no longer knows the client's `Mcp-Session-Id`. The MCP
// specification says it answers 404 and that the client then starts a new session with a new
// `initialize`; many servers (the reference servers among them) answer 400 "No valid session ID"
// instead. Both mean the same to the client: initialize again.

/** "The server MUST respond to requests containing that session ID with HTTP 404 Not Found." */
const HTTP_SESSION_NOT_FOUND = 404;
/** The answer of servers that check the session ID before anything else. */
const HTTP_BAD_REQUEST = 400;
/** A 400 about the session, not the request: "No valid session ID provided", "Server not initialized". */
const SESSION_ID_COMPLAINT = /session|not initialized/i;
/** The older SSE transport's POST error carries its status only in the message. */
const SSE_POST_NOT_FOUND = /\(HTTP 404\)/;

/** Whether a failed request means that the server does not know this client's session any more. */
export function isSessionExpired(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const status = (error as { code?: unknown }).code;
  if (status === HTTP_SESSION_NOT_FOUND) return true;
  if (status === HTTP_BAD_REQUEST) return SESSION_ID_COMPLAINT.test(error.message);
  return SSE_POST_NOT_FOUND.test(error.message);
}

/** The JSON-RPC error message inside an HTTP error body, when the server sent one. */
const JSON_RPC_MESSAGE = /"message"\s*:\s*"([^"]*)"/;

/** What the server said, short: `HTTP 404 "Session not found"`. */
export function expiredSessionAnswer(error: Error): string {
  const code = (error as { code?: unknown }).code;
  const status = typeof code === "number" ? code : HTTP_SESSION_NOT_FOUND;
  const said = JSON_RPC_MESSAGE.exec(error.message)?.[1];
  return said ? `HTTP ${status} "${said}"` : `HTTP ${status}`;
}
