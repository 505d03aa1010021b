import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type OmniMessage,
  type PartialToolCallOutputPayload,
  partialToolCallOutput,
  type ToolCallOutputPayload,
  toolCall,
} from "@penguin/protocol";
import type { ToolDefinitionConfig } from "@penguin/state";
import {
  Environment,
  type EnvironmentOptions,
  type ExecuteToolOptions,
} from "../../src/environment/environment.js";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../src/environment/types.js";
import { ProcessManager } from "../../src/processes/process-manager.js";

// Small real parts for the contract tests: a temp workspace and scratchpad, test-local tools,
// and a collector that checks the framing of every call it sees.

export interface TempDirs {
  root: string;
  workspaceDir: string;
  scratchpadDir: string;
  cleanup(): Promise<void>;
}

export async function tempDirs(): Promise<TempDirs> {
  const root = await mkdtemp(join(tmpdir(), "penguin-env-"));
  return {
    root,
    workspaceDir: join(root, "workspace"),
    scratchpadDir: join(root, "data", "scratchpad", "s1"),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

export function definition(overrides: Partial<ToolDefinitionConfig> = {}): ToolDefinitionConfig {
  return {
    name: "test_tool",
    description: "A tool for tests.",
    parameters: { type: "object", properties: {}, additionalProperties: true },
    permission: "r",
    timeoutMs: 10_000,
    maxOutputLength: 16_000,
    ...overrides,
  };
}

export type TestExecute = (
  args: Record<string, unknown>,
  ctx: ToolExecutionContext,
) => AsyncGenerator<OmniMessage, ToolResult | undefined>;

export function testTool(
  execute: TestExecute,
  overrides: Partial<ToolDefinitionConfig> = {},
  extra: Partial<BuiltinTool> = {},
): BuiltinTool {
  const def = definition(overrides);
  return { name: def.name, definition: def, execute, ...extra };
}

const NO_MESSAGES: OmniMessage[] = [];

/** A tool that yields nothing: it only runs `run` and returns its result. */
export function quietTool(
  run: (args: Record<string, unknown>, ctx: ToolExecutionContext) => Promise<ToolResult | undefined>,
  overrides: Partial<ToolDefinitionConfig> = {},
): BuiltinTool {
  return testTool(async function* (args, ctx) {
    const result = await run(args, ctx);
    yield* NO_MESSAGES;
    return result;
  }, overrides);
}

/** A tool that yields the given chunks as deltas, then returns `result`. */
export function chunkTool(
  chunks: string[],
  result: ToolResult = {},
  overrides: Partial<ToolDefinitionConfig> = {},
) {
  return testTool(async function* (_args, ctx) {
    for (const chunk of chunks) yield partialToolCallOutput("delta", ctx.toolCallId, chunk);
    return result;
  }, overrides);
}

export function makeEnvironment(
  dirs: TempDirs,
  tools: BuiltinTool[],
  options: Partial<EnvironmentOptions> = {},
): Environment {
  return new Environment({
    tools,
    sessionId: "s1",
    workspaceDir: dirs.workspaceDir,
    scratchpadDir: dirs.scratchpadDir,
    processes: new ProcessManager(),
    warn: () => {},
    ...options,
  });
}

export interface CallRecord {
  messages: OmniMessage[];
  deltas: string[];
  complete: ToolCallOutputPayload;
  /** The concatenated delta text: what a user watching the stream saw. */
  streamed: string;
  images: string[];
}

/**
 * Runs one call to the end and checks the framing every call must have: start first, then
 * deltas, stop, and exactly one complete output last, all with the call's id.
 */
export async function runCall(
  env: Environment,
  name: string,
  args: string | Record<string, unknown> = {},
  id = "call_1",
  opts: ExecuteToolOptions = {},
): Promise<CallRecord> {
  const messages: OmniMessage[] = [];
  for await (const message of env.executeTool(toolCall(name, args, id), opts)) messages.push(message);
  return inspect(messages, id);
}

export function inspect(messages: OmniMessage[], id: string): CallRecord {
  const own = messages.filter((m) => m.origin === undefined && m.type === "model_msg");
  const partials = own.filter(
    (m) => m.payload.type === "partial_tool_call_output",
  ) as OmniMessage<PartialToolCallOutputPayload>[];
  const completes = own.filter(
    (m) => m.payload.type === "tool_call_output",
  ) as OmniMessage<ToolCallOutputPayload>[];
  if (completes.length !== 1)
    throw new Error(`expected exactly one tool_call_output, got ${completes.length}`);
  if (own[own.length - 1] !== completes[0]) throw new Error("the complete output must be the last message");
  if (partials[0]?.payload.event_type !== "start") throw new Error("the first partial must be start");
  if (partials[partials.length - 1]?.payload.event_type !== "stop")
    throw new Error("the last partial must be stop");
  for (const m of [...partials, ...completes]) {
    if (m.payload.tool_call_id !== id) throw new Error(`wrong tool_call_id ${m.payload.tool_call_id}`);
  }
  const deltas = partials.filter((m) => m.payload.event_type === "delta");
  return {
    messages,
    deltas: deltas.map((m) => m.payload.output),
    complete: completes[0].payload,
    streamed: deltas.map((m) => m.payload.output).join(""),
    images: deltas.flatMap((m) => m.payload.images ?? []),
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
