import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage, partialToolCallOutput, type ToolSpec } from "@penguin/protocol";
import type { ToolDefinitionConfig } from "@penguin/state";
import { DEFAULT_MAX_OUTPUT_LENGTH, DEFAULT_TOOL_TIMEOUT_MS } from "../environment/limits.js";
import type { BuiltinTool } from "../environment/types.js";
import { replaceControlCharacters } from "../text/control-characters.js";
import { callFailureText, unavailableText } from "./call-failure.js";
import { mapCallResult } from "./call-result.js";
import type { McpConnection, McpServerConfig } from "./connection.js";
import { ProgressFeed } from "./progress.js";

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
    // A server's description reaches every request: the same rule as any text from the server.
    description: replaceControlCharacters(
      tool.description?.trim() || tool.title || tool.annotations?.title || tool.name,
    ),
    parameters: parametersOf(tool),
    permission: mcpToolPermission(tool, config),
    timeoutMs: config.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    maxOutputLength: config.maxOutputLength ?? DEFAULT_MAX_OUTPUT_LENGTH,
  };
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
      // Everything the server wrote reaches the model and the terminal under the same rule as a
      // command's output (NUL and other control characters replaced), whatever path it took.
      const delta = (text: string) => partialToolCallOutput("delta", id, replaceControlCharacters(text));
      // Progress notifications stream as output lines while the call runs.
      const progress = new ProgressFeed();
      const call = connection.callTool(tool.name, args, {
        signal: ctx.signal,
        readOnly: definition.permission === "r",
        onProgress: progress.push,
      });
      const lines = progress.follow(call);
      let step = await lines.next();
      while (!step.done) {
        yield delta(step.value);
        step = await lines.next();
      }
      const settled = step.value;
      // callTool reports every ending as a value; a throw here would be a bug in it.
      const outcome = settled.ok
        ? settled.value
        : {
            status: "error" as const,
            reason: errorMessage(settled.error),
          };
      // An interrupt or the timeout: the Environment reports it.
      if (outcome.status === "interrupted") return;
      if (outcome.status !== "answered") {
        yield delta(callFailureText(server, tool.name, outcome));
        return { stopReason: "failed" };
      }
      const mapped = mapCallResult(outcome.result, { modelHasVision: ctx.modelHasVision });
      if (mapped.text !== "") yield delta(mapped.text);
      const linked = await connection.readResourceLinks(outcome.result, ctx.modelHasVision, ctx.signal);
      if (linked) {
        const text = replaceControlCharacters(`${mapped.text !== "" ? "\n" : ""}${linked.text}`);
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
      yield partialToolCallOutput(
        "delta",
        ctx.toolCallId,
        replaceControlCharacters(unavailableText(server, reason())),
      );
      return { stopReason: "failed" };
    },
  };
}
