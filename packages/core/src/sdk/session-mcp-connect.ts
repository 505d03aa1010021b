import {
  mcpConnectBegin,
  mcpConnectEnd,
  type OmniMessage,
  type ToolSpec,
  toolListReady,
  warningEvent,
} from "@penguin/protocol";
import type { TraceWriter } from "@penguin/trace";
import type { Environment } from "../environment/environment.js";
import type { McpToolset } from "../mcp/toolset.js";

/** What connecting the MCP servers changes of a session: its Environment's tools and its tool list. */
interface McpConnectParts {
  trace: TraceWriter;
  environment: Environment;
  toolSpecs: ToolSpec[];
}

/**
 * Connects the MCP servers before the first model request, so the tool list is final before
 * the prompt prefix is first sent: `mcp_connect_begin`, `mcp_connect_end`, then
 * `tool_list_ready` with the whole toolset, which then stays the same for the session's life.
 * An interrupted connect adds no tools and is tried again by the next task.
 */
export async function* connectMcp(
  parts: McpConnectParts,
  mcp: McpToolset,
  signal: AbortSignal,
): AsyncGenerator<OmniMessage, void, undefined> {
  const begin = mcpConnectBegin(mcp.serverNames);
  parts.trace.append(begin);
  yield begin;
  const outcome = await mcp.connect(signal);
  const end = mcpConnectEnd(outcome.status, outcome.results);
  parts.trace.append(end);
  yield end;
  if (outcome.status === "aborted") return;
  parts.environment.addTools(outcome.tools);
  // Deferred MCP tools are in the Environment but not in the list until load_mcp_tools loads them.
  parts.toolSpecs = mcp.offered(parts.environment.toolSpecs());
  mcp.checkToolList(parts.toolSpecs);
  // load_mcp_tools lengthens this list in place: the engine holds it for the whole task.
  mcp.keepUpToDate(parts.toolSpecs);
  const ready = toolListReady(parts.toolSpecs);
  parts.trace.append(ready);
  yield ready;
  // What connecting found wrong (a skipped server, a misspelt tool name, a tool left out, a list
  // past its budget): traced and streamed like the session's other warnings, after its tool list.
  for (const line of mcp.takeWarnings()) {
    const warning = warningEvent("mcp", line);
    parts.trace.append(warning);
    yield warning;
  }
}
