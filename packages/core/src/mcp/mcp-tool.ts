import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { partialToolCallOutput, type ToolSpec } from "@penguin/protocol";
import type { ToolDefinitionConfig } from "@penguin/state";
import { DEFAULT_MAX_OUTPUT_LENGTH, DEFAULT_TOOL_TIMEOUT_MS } from "../environment/limits.js";
import type { BuiltinTool } from "../environment/types.js";
import { mapCallResult } from "./call-result.js";
import { describeError, type McpConnection, type McpServerConfig } from "./connection.js";

// An MCP server's tool is a BuiltinTool like any other: the Environment validates its arguments
// against the server's input schema, frames, times out (`timeoutMs` of the server), truncates
// (`maxOutputLength`), archives and closes every call; approval decides it by its permission.

/**
 * "permission `r` when the tool's `annotations.readOnlyHint` is true and the server's
 * `permission` is `auto`, else per server config (`r`/`rw`)".
 */
export function mcpToolPermission(tool: Pick<Tool, "annotations">, config: McpServerConfig): "r" | "rw" {
  if (config.permission === "auto") return tool.annotations?.readOnlyHint === true ? "r" : "rw";
  return config.permission;
}

/** The server's input schema as a tool's parameters: always an object schema. */
function parametersOf(tool: Tool): ToolDefinitionConfig["parameters"] {
  const { $schema: _dialect, ...schema } = tool.inputSchema as Record<string, unknown>;
  // The dialect line is dropped: Penguin checks arguments with JSON Schema 2020-12, and the
  // providers do not need it.
  return { ...schema, type: "object" } as ToolDefinitionConfig["parameters"];
}

function definitionOf(name: string, tool: Tool, config: McpServerConfig): ToolDefinitionConfig {
  return {
    name,
    description: tool.description?.trim() || tool.title || tool.annotations?.title || tool.name,
    parameters: parametersOf(tool),
    permission: mcpToolPermission(tool, config),
    timeoutMs: config.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    maxOutputLength: config.maxOutputLength ?? DEFAULT_MAX_OUTPUT_LENGTH,
  };
}

/** What the model reads when a server cannot take calls. */
export function unavailableText(server: string, reason: string): string {
  return `The MCP server "${server}" is unavailable: ${reason}. Its tools cannot be used in this session; do without them.`;
}

/** A tool of a connected server, offered to the model as `name`. */
export function createMcpTool(
  name: string,
  server: string,
  tool: Tool,
  connection: McpConnection,
): BuiltinTool {
  const definition = definitionOf(name, tool, connection.config);
  return {
    name,
    definition,
    async *execute(args, ctx) {
      const id = ctx.toolCallId;
      // A server that stopped earlier fails at once, with the reason (no waiting on a dead pipe).
      const before = connection.unavailableReason;
      if (before !== undefined) {
        yield partialToolCallOutput("delta", id, unavailableText(server, before));
        return { stopReason: "failed" };
      }
      let result: Awaited<ReturnType<McpConnection["callTool"]>>;
      try {
        result = await connection.callTool(tool.name, args, ctx.signal);
      } catch (error) {
        // An interrupt or the timeout: the Environment reports it.
        if (ctx.signal?.aborted) return;
        const stopped = connection.unavailableReason;
        const text =
          stopped !== undefined
            ? `The MCP server "${server}" stopped during the call: ${stopped}. The call did not finish, and the server's tools cannot be used for the rest of this session.`
            : `The MCP server "${server}" answered the call with an error: ${describeError(error)}`;
        yield partialToolCallOutput("delta", id, text);
        return { stopReason: "failed" };
      }
      const mapped = mapCallResult(result, { modelHasVision: ctx.modelHasVision });
      if (mapped.text !== "") yield partialToolCallOutput("delta", id, mapped.text);
      const linked = await connection.readResourceLinks(result, ctx.modelHasVision, ctx.signal);
      if (linked) {
        const text = `${mapped.text !== "" ? "\n" : ""}${linked.text}`;
        yield partialToolCallOutput("delta", id, text, linked.images.length > 0 ? linked.images : undefined);
      }
      return {
        ...(mapped.failed ? { stopReason: "failed" as const } : {}),
        ...(mapped.images.length > 0 ? { images: mapped.images } : {}),
      };
    },
  };
}

/**
 * A tool the trace recorded for a server that could not be reached this time: offered exactly as
 * before, so the tool list (part of the prompt-cache prefix) stays byte for byte the same after a
 * resume, and every call fails at once with the reason.
 */
export function createUnavailableTool(spec: ToolSpec, server: string, reason: () => string): BuiltinTool {
  return {
    name: spec.name,
    definition: {
      name: spec.name,
      description: spec.description,
      parameters: spec.parameters as ToolDefinitionConfig["parameters"],
      permission: spec.permission,
      timeoutMs: DEFAULT_TOOL_TIMEOUT_MS,
      maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
    },
    async *execute(_args, ctx) {
      yield partialToolCallOutput("delta", ctx.toolCallId, unavailableText(server, reason()));
      return { stopReason: "failed" };
    },
  };
}
