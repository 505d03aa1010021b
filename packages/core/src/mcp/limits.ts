// Limits and defaults of MCP servers, each with the sentence of the contract it implements.

/** "tools exposed as `mcp__<server>__<tool>`" (defined with the Environment, which tells MCP tools apart too). */
export { MCP_TOOL_PREFIX } from "../environment/tool-names.js";
/** Between the server's name and the tool's name. */
export const MCP_NAME_SEPARATOR = "__";
/** Tool names as the provider APIs accept them: `^[a-zA-Z0-9_-]{1,64}$`. */
export const MCP_TOOL_NAME_MAX_LENGTH = 64;
/** Hex digits of the hash that keeps a shortened or clashing name unique. */
export const MCP_NAME_HASH_LENGTH = 8;

/**
 * A stdio server's stderr is kept, not shown: the last this many characters explain why it failed
 * to start or stopped.
 */
export const MCP_STDERR_TAIL_CHARS = 2_000;
/** A failure reason is one line for the operator; longer text is cut with an ellipsis. */
export const MCP_REASON_MAX_CHARS = 400;

/**
 * The SDK's own per-request timeout is set past any timer: the Environment's per-call timeout
 * (`timeoutMs`) and the user's interrupt end a call through its AbortSignal instead.
 */
export const MCP_SDK_REQUEST_TIMEOUT_MS = 2_147_483_647;

/**
 * "MCP env/headers values count as secrets for redaction": values shorter than this are left
 * alone, since replacing a word like "1" or "true" everywhere would garble ordinary output.
 */
export const MCP_SECRET_MIN_LENGTH = 8;

/**
 * "`session.dispose()` closes every MCP client (stdio child processes end)": how long closing one
 * may take; the SDK closes stdin, then sends SIGTERM after 2 s and SIGKILL after 2 s more.
 */
export const MCP_CLOSE_WAIT_MS = 5_000;

/** What Penguin calls itself in the MCP `initialize` handshake (servers log it; none depend on it). */
export const MCP_CLIENT_INFO = { name: "penguin", version: "0.0.0" } as const;

/**
 * "Long-running MCP tools stream progress notifications as partial output": each notification is
 * one line of the output the model reads, so a server that reports every small step is cut off
 * after this many lines (the rest are counted in one note) to leave room for the result.
 */
export const MCP_PROGRESS_MAX_LINES = 20;
/** A progress line is one line; a longer message is cut with an ellipsis. */
export const MCP_PROGRESS_LINE_MAX_CHARS = 200;

/** The tool that lists and reads MCP servers' resources: one tool for every server. */
export const READ_MCP_RESOURCE_TOOL = "read_mcp_resource";
/** The tool that loads deferred MCP tools' schemas into the tool list. */
export const LOAD_MCP_TOOLS_TOOL = "load_mcp_tools";

/**
 * "MCP tools are listed by name and one-line description in a compact catalog": a description is
 * its first line, cut to this many characters.
 */
export const MCP_CATALOG_DESCRIPTION_MAX_CHARS = 120;

/** "resolve resource links in results": at most this many links of one result are read. */
export const MCP_RESOURCE_LINKS_READ_MAX = 5;
/**
 * A linked resource's text is cut here (the call's output cap still applies to the whole result):
 * one large link does not crowd out the others; the rest is read with `read_mcp_resource`.
 */
export const MCP_RESOURCE_LINK_MAX_CHARS = 8_000;
/** Resources listed per server by `read_mcp_resource` without a uri; a note says when there are more. */
export const MCP_RESOURCE_LIST_MAX = 200;
