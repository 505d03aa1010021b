import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { requestBegin, sessionMeta, taskEnd, toolCall, toolDispatched, userText } from "@penguin/protocol";
import {
  applyRichRead,
  applyWriteGuard,
  defaultToolLimits,
  presetToolDefinitions,
  type ToolDefinitionConfig,
  type ToolLimits,
} from "@penguin/state";
import type { EnvironmentOptions } from "../../src/environment/environment.js";
import { type AgentSeat, agentTreeToolFactories } from "../../src/tools/agents/index.js";
import { type ExecutionSource, executionToolFactories } from "../../src/tools/executions/index.js";
import { extendedToolFactories } from "../../src/tools/extended/index.js";
import {
  type JournalAccess,
  journalToolFactories,
  type ResolutionFields,
} from "../../src/tools/journal/index.js";
import {
  type Mailbox,
  MessageHub,
  messagingToolFactories,
  UserAnswerers,
} from "../../src/tools/messaging/index.js";
import { type MetricsSource, metricsToolFactories } from "../../src/tools/metrics/index.js";
import { createBuiltinTools } from "../../src/tools/registry.js";
import { type ChildSession, SubagentManager } from "../../src/tools/subagent/index.js";
import { makeEnvironment, runCall, type TempDirs, tempDirs } from "../environment/support.js";

// The extended tools through the real Environment: the preset's definitions (as a session
// assembles them), real files in a temp workspace.

export { runCall, type TempDirs };

export async function workspace(): Promise<TempDirs> {
  const dirs = await tempDirs();
  await mkdir(dirs.workspaceDir, { recursive: true });
  return dirs;
}

export interface ToolsetOptions {
  writeGuard?: boolean;
  /** `tools.readFileRich`: read_file also shows images and reads PDFs. */
  readFileRich?: boolean;
  limits?: Partial<{ [K in keyof ToolLimits]: Partial<ToolLimits[K]> }>;
  /** Changes to a definition before assembly, e.g. a tiny maxOutputLength. */
  edit?: (definition: ToolDefinitionConfig) => ToolDefinitionConfig;
  environment?: Partial<EnvironmentOptions>;
  /** The messaging tools' end of a hub; default `root` of a hub where `sub_1` is running. */
  mailbox?: Mailbox;
  /** read_metrics' rows; default two tools of a session that ran them. */
  metrics?: MetricsSource;
  /** resolve_execution_activity's journal; default one uncertain write_file (`oneUncertainWrite`). */
  journal?: JournalAccess;
  /** launch_agent's and stop_agent's place in a tree; default the root of `answeringTree()`. */
  seat?: AgentSeat;
  /** The execution tools' retained work; default `retainedWork()`. */
  executions?: ExecutionSource;
}

export function definitionsOf(options: ToolsetOptions = {}): ToolDefinitionConfig[] {
  return presetToolDefinitions("extended")
    .map((definition) => (options.edit ? options.edit(definition) : definition))
    .map((definition) => (options.readFileRich ? applyRichRead(definition) : definition))
    .map((definition) => (options.writeGuard ? applyWriteGuard(definition) : definition));
}

/** An Environment with the extended preset's tools (subagent tools left out: they need a session). */
export function extendedEnvironment(dirs: TempDirs, options: ToolsetOptions = {}) {
  const defaults = defaultToolLimits();
  const limits = Object.fromEntries(
    Object.entries(defaults).map(([name, value]) => [
      name,
      { ...value, ...(options.limits?.[name as keyof ToolLimits] ?? {}) },
    ]),
  ) as ToolLimits;
  const definitions = definitionsOf(options).filter(
    (d) => !["run_subagent", "input_subagent"].includes(d.name),
  );
  const { tools, unknown } = createBuiltinTools(definitions, {
    ...extendedToolFactories(limits, { readFileRich: options.readFileRich }),
    ...messagingToolFactories(options.mailbox ?? rootWithOneChild()),
    ...metricsToolFactories(options.metrics ?? twoToolsMeasured),
    ...journalToolFactories(options.journal ?? oneUncertainWrite(dirs.workspaceDir).access),
    ...agentTreeToolFactories(options.seat ?? answeringTree()),
    ...executionToolFactories(options.executions ?? retainedWork()),
  });
  if (unknown.length > 0) throw new Error(`no factory for ${unknown.join(", ")}`);
  return makeEnvironment(dirs, tools, { writeGuard: options.writeGuard, ...options.environment });
}

/**
 * The root's seat in a tree whose children answer every task at once (their session ends the task
 * as soon as it starts): enough for launch_agent and stop_agent calls to run through the
 * Environment without a model.
 */
export function answeringTree(): AgentSeat {
  let made = 0;
  const child = (): ChildSession => {
    const id = `child-session-${++made}`;
    return {
      id,
      async *run() {
        yield taskEnd("completed");
      },
      dispose: async () => {},
    };
  };
  const manager = new SubagentManager({
    launcher: {
      create: async () => child(),
      resume: () => Promise.reject(new Error("an answering child is never resumed")),
      readTrace: () => [],
    },
  });
  return {
    manager,
    self: "root",
    depth: 0,
    maxDepth: 5,
    namedAgents: { get: () => undefined, list: () => [] },
    allowedTools: undefined,
    checkToolNames: () => ({ ok: true }),
  };
}

/**
 * The root's mailbox in a hub where child `sub_1` runs (its inbox is open), with a user who
 * answers every question at once (`ask`).
 */
export function rootWithOneChild(): Mailbox {
  const hub = new MessageHub();
  hub.open("root");
  hub.open("sub_1");
  const user = new UserAnswerers(async (question) => `The user's answer to ${question.id}: keep both files.`);
  return { hub, self: "root", user };
}

/**
 * A journal with one uncertain call, `call_crashed`: a write_file of `uncertain.txt` (absent before
 * it) that a crash cut off; `recorded` collects the decisions taken on it.
 */
export function oneUncertainWrite(workspaceDir: string) {
  const recorded: ResolutionFields[] = [];
  const access: JournalAccess = {
    journal: () => ({
      entries: [
        {
          toolCallId: "call_crashed",
          name: "write_file",
          arguments: JSON.stringify({ file_path: "uncertain.txt", content: "x" }),
          requestedAt: new Date(0).toISOString(),
          state: "dispatched",
          readOnly: false,
          files: [
            { path: join(workspaceDir, "uncertain.txt"), before_sha256: null, after_sha256: "a".repeat(64) },
          ],
          uncertain: true,
        },
      ],
      startedHere: () => false,
    }),
    record: (resolution) => {
      recorded.push(resolution);
    },
  };
  return { access, recorded };
}

/** read_metrics' rows in a session that ran two tools (the same rows whatever the summary). */
export const twoToolsMeasured: MetricsSource = () => [
  { name: "exec_command", count: 3, total_ms: 900, p50_ms: 300, p95_ms: 400, max_ms: 400, errors: 1 },
  { name: "read_file", count: 5, total_ms: 50, p50_ms: 10, p95_ms: 12, max_ms: 12, errors: 0 },
];

/**
 * Retained work of a session read by its root: the root's task cut off mid write_file (`root/1`,
 * interrupted) and child sub_1's task stopped (`sub_1/1`, paused). Relaunching a child succeeds.
 */
export function retainedWork(): ExecutionSource {
  const meta = (sessionId: string) =>
    sessionMeta({
      session_id: sessionId,
      provider: "fake",
      model_id: "fake-model",
      system_prompt: "You are a test.",
      workspace: "/w",
      agent_id: "default",
    });
  const root = [
    meta("s-root"),
    userText("Fix the build and report what changed."),
    requestBegin(),
    toolCall("write_file", { file_path: "a.txt", content: "fixed" }, "c1"),
    toolDispatched({ tool_call_id: "c1", name: "write_file", read_only: false }),
  ];
  const child = [
    meta("s-child"),
    userText("Run the tests.", { sender: "parent_agent" }),
    taskEnd("aborted", "stopped"),
  ];
  return {
    self: "root",
    read: () => ({
      agents: [
        { agentRunId: "root", sessionId: "s-root", depth: 0, records: root },
        { agentRunId: "sub_1", sessionId: "s-child", depth: 1, parent: "root", records: child },
      ],
      options: { liveSince: "2999-01-01T00:00:00.000Z" },
    }),
    relaunch: async () => ({ ok: true }),
  };
}
