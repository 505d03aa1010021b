import { createBuiltinTools, Environment, type EnvironmentOptions, ProcessManager } from "@penguin/core";
import { type OmniMessage, type ToolCallOutputPayload, toolCall } from "@penguin/protocol";
import { DEFAULT_TOOL_DEFINITIONS } from "@penguin/state";
import { type BenchDirs, shellEnv } from "./workdir.js";

/**
 * An Environment with the default toolset (default output caps, archive on), as a session gets
 * it, but without a model: a benchmark calls its tools directly. Without `checkpoints` its file
 * tools keep no prior states (a session's Environment always has them).
 */
export function defaultEnvironment(
  dirs: BenchDirs,
  checkpoints?: EnvironmentOptions["checkpoints"],
): Environment {
  const { tools, unknown } = createBuiltinTools(DEFAULT_TOOL_DEFINITIONS);
  if (unknown.length > 0 && !tools.some((tool) => tool.name === "exec_command")) {
    throw new Error(`the default toolset has no exec_command (unknown: ${unknown.join(", ")})`);
  }
  return new Environment({
    tools,
    sessionId: "bench-session",
    workspaceDir: dirs.workspace,
    scratchpadDir: dirs.scratchpad,
    processes: new ProcessManager({ baseEnv: shellEnv(dirs.home) }),
    warn: (line) => process.stderr.write(`bench: environment warning: ${line}\n`),
    ...(checkpoints ? { checkpoints } : {}),
  });
}

let callCounter = 0;

/** Runs one tool call through the Environment to its close and returns the complete output. */
export async function callTool(
  environment: Environment,
  name: string,
  args: Record<string, unknown>,
  journal?: (message: OmniMessage) => void,
): Promise<ToolCallOutputPayload> {
  callCounter += 1;
  let output: ToolCallOutputPayload | undefined;
  const call = toolCall(name, args, `call_bench_${callCounter}`);
  for await (const message of environment.executeTool(call, journal ? { journal } : {})) {
    if (message.type === "model_msg" && message.payload.type === "tool_call_output") {
      output = message.payload as ToolCallOutputPayload;
    }
  }
  if (!output) throw new Error(`${name} closed without a tool_call_output`);
  return output;
}

/** Fails the benchmark when a command did not run to a zero exit (a figure for a failure is no figure). */
export function expectExitZero(output: ToolCallOutputPayload, what: string): void {
  if (!output.output.includes("[exit code: 0]")) {
    throw new Error(
      `${what} did not finish with exit code 0; its output ends with: ${output.output.slice(-500)}`,
    );
  }
}
