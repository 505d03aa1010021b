import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type {
  CallToolRequest,
  CallToolResult,
  ServerCapabilities,
  Tool,
} from "@modelcontextprotocol/sdk/types.js";

// Tools that declare `execution.taskSupport: "required"` cannot be called with a plain
// `tools/call`: the server answers with a task, which the client polls (`tasks/get`) until it
// ends, then fetches its result (`tasks/result`). The official SDK does this in its (experimental)
// `callToolStream`; Penguin runs such a call through it and turns its messages into one result,
// so the tool looks like any other to the Environment. Progress notifications keep arriving
// through `onprogress` for the task's whole life.

/** Whether a listed tool can only be called as a task. */
export function requiresTask(tool: Pick<Tool, "execution">): boolean {
  return tool.execution?.taskSupport === "required";
}

/**
 * Why a tool that requires tasks cannot be offered (undefined when it can): the server must say
 * it runs `tools/call` as tasks, else a call could never succeed.
 */
export function taskSupportProblem(
  tool: Pick<Tool, "execution">,
  capabilities: ServerCapabilities | undefined,
): string | undefined {
  if (!requiresTask(tool)) return undefined;
  if (capabilities?.tasks?.requests?.tools?.call !== undefined) return undefined;
  return 'it requires task-based execution (execution.taskSupport: "required"), but the server does not declare the tasks capability for tools/call';
}

/**
 * Calls a task-required tool and waits for its task to end. Rejects like `Client.callTool` does
 * (with the SDK's McpError) when the task fails or is cancelled; an interrupt (the options'
 * signal) also asks the server to cancel the task.
 */
export async function callToolAsTask(
  client: Client,
  params: CallToolRequest["params"],
  options: RequestOptions,
): Promise<CallToolResult> {
  let taskId: string | undefined;
  let statusMessage: string | undefined;
  try {
    const stream = client.experimental.tasks.callToolStream(params, undefined, options);
    for await (const message of stream) {
      switch (message.type) {
        case "taskCreated":
        case "taskStatus":
          taskId = message.task.taskId;
          statusMessage = message.task.statusMessage ?? statusMessage;
          break;
        case "result":
          return message.result as CallToolResult;
        case "error":
          // "Task … failed" alone says little: the server's last status message says why.
          if (statusMessage !== undefined && !message.error.message.includes(statusMessage)) {
            throw new Error(`${message.error.message}: ${statusMessage}`);
          }
          throw message.error;
      }
    }
    throw new Error("the task ended without a result");
  } finally {
    // Interrupted or timed out: the server would otherwise go on working for nobody.
    if (options.signal?.aborted && taskId !== undefined) {
      void client.experimental.tasks.cancelTask(taskId).catch(() => {});
    }
  }
}
