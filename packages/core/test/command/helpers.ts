import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { OmniMessage } from "@penguin/protocol";
import { DEFAULT_TOOL_DEFINITIONS, type ToolDefinitionConfig } from "@penguin/state";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../src/environment/types.js";
import {
  createExecCommandTool,
  createInputCommandTool,
  type ProcessManager,
} from "../../src/tools/command/index.js";

export function definition(
  name: string,
  overrides: Partial<ToolDefinitionConfig> = {},
): ToolDefinitionConfig {
  const found = DEFAULT_TOOL_DEFINITIONS.find((tool) => tool.name === name);
  if (!found) throw new Error(`no default definition for ${name}`);
  return { ...structuredClone(found), ...overrides } as ToolDefinitionConfig;
}

export const execTool = (overrides: Partial<ToolDefinitionConfig> = {}) =>
  createExecCommandTool(definition("exec_command", overrides));
export const inputTool = (overrides: Partial<ToolDefinitionConfig> = {}) =>
  createInputCommandTool(definition("input_command", overrides));

export function tempWorkspace(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), "penguin-cmd-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

let callCounter = 0;

export function context(
  processes: ProcessManager,
  workspaceDir: string,
  signal?: AbortSignal,
): ToolExecutionContext {
  callCounter += 1;
  return {
    workspaceDir,
    toolCallId: `call_${callCounter}`,
    signal,
    sessionId: "test-session",
    scratchpadDir: workspaceDir,
    processes,
    modelHasVision: false,
  };
}

export interface CallRun {
  /** The deltas concatenated: what the Environment would show. */
  output: string;
  deltas: OmniMessage[];
  result: ToolResult;
}

/** Runs one tool call to its end, as the Environment would, keeping every delta. */
export async function runCall(
  tool: BuiltinTool,
  args: Record<string, unknown>,
  ctx: ToolExecutionContext,
): Promise<CallRun> {
  const deltas: OmniMessage[] = [];
  const generator = tool.execute(args, ctx);
  for (;;) {
    const step = await generator.next();
    if (step.done) {
      return { output: deltas.map(deltaText).join(""), deltas, result: step.value ?? {} };
    }
    deltas.push(step.value);
  }
}

export function deltaText(message: OmniMessage): string {
  const payload = message.payload as {
    type: string;
    event_type?: string;
    output?: string;
    tool_call_id?: string;
  };
  if (payload.type !== "partial_tool_call_output" || payload.event_type !== "delta") {
    throw new Error(
      `a command tool yielded something other than an output delta: ${JSON.stringify(payload)}`,
    );
  }
  return payload.output ?? "";
}

/** The process_id named by a background note. */
export function processIdOf(result: ToolResult): string {
  const match = /process_id=(cmd_\d+)/.exec(result.note ?? "");
  if (!match?.[1]) throw new Error(`no process_id in note: ${result.note}`);
  return match[1];
}

interface ProcStat {
  pid: number;
  state: string;
  pgrp: number;
}

function readStat(pid: number | string): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses.
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { pid: Number(pid), state: fields[0] as string, pgrp: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

/** Alive = has a /proc entry that is not a zombie (an unreaped exit holds no resources). */
export function isAlive(pid: number): boolean {
  const stat = readStat(pid);
  return stat !== undefined && stat.state !== "Z";
}

/** Live (non-zombie) members of process group `pgid`. */
export function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (stat && stat.pgrp === pgid && stat.state !== "Z") members.push(stat.pid);
  }
  return members;
}

/** Waits until `check` holds (polling), failing with `what` after `ms`. */
export async function waitUntil(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Runs `cmd` through the manager in `cwd` and returns its whole output, trimmed. */
export async function runToEnd(processes: ProcessManager, cmd: string, cwd: string): Promise<string> {
  const started = processes.start({ cmd, cwd });
  if (!started.ok) throw new Error(started.error);
  const session = started.session;
  let output = "";
  while (!session.finished) {
    await session.waitForActivity(1000);
    output += session.takeUnread();
  }
  return (output + session.takeUnread()).trim();
}
