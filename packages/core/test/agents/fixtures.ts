import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeLlm, type ScriptTurnInput, startFakeLlm } from "@penguin/fake-llm";
import type { OmniMessage } from "@penguin/protocol";
import {
  agentNamedAgentsDir,
  DEFAULT_AGENT_ID,
  type SystemConfigInput,
  saveProjectConfig,
} from "@penguin/state";
import { ProjectConfigSchema } from "@penguin/state/schemas";
import { createAgent } from "../../src/sdk/agent.js";
import { kind, sessionRecords } from "../subagent/fixtures.js";

// One fake-llm server for a whole agent tree, routed by the system prompt: a request whose system
// message holds a route's marker (the marker is in the child's instructions) plays that route's
// turns in order; every other request (the root's) plays the root's script. Agents of a tree run at
// once, so one script per agent keeps each agent's turns its own whatever the interleaving.

export const MODEL = "fake/fake-model";
export const RETRY_FAST = { baseDelayMs: 1, maxDelayMs: 4 };
export const EXTENDED = { tools: { preset: "extended" as const } };

export interface TreeSetup {
  root: ScriptTurnInput[];
  /** Turns by marker: the agent whose instructions hold the marker plays them. */
  routes?: Record<string, ScriptTurnInput[]>;
  config?: SystemConfigInput;
  /** Named agents of the agent's own folder: name -> file text. */
  namedAgents?: Record<string, string>;
}

/** The system message of an OpenAI chat request. */
export function systemOf(body: unknown): string {
  const messages = (body as { messages?: { role: string; content?: unknown }[] }).messages ?? [];
  const system = messages.find((message) => message.role === "system");
  return typeof system?.content === "string" ? system.content : JSON.stringify(system?.content ?? "");
}

export async function setupTree(options: TreeSetup) {
  const root = mkdtempSync(join(tmpdir(), "penguin-agents-"));
  const dataRoot = join(root, "data");
  const workspaceDir = join(root, "workspace");
  mkdirSync(workspaceDir, { recursive: true });
  const queues = Object.entries(options.routes ?? {}).map(([marker, turns]) => ({
    marker,
    turns: [...turns],
  }));
  const llm: FakeLlm = await startFakeLlm({
    script: options.root,
    apiKey: "sk-test",
    pick(body) {
      const system = systemOf(body);
      const route = queues.find((queue) => system.includes(queue.marker));
      if (!route) return undefined;
      return route.turns.shift() ?? { text: `(the script of ${route.marker} is exhausted)` };
    },
  });
  await saveProjectConfig(
    dataRoot,
    ProjectConfigSchema.parse({
      models: [
        {
          provider: "fake",
          api: "openai",
          model_id: "fake-model",
          base_url: `${llm.url}/v1`,
          api_key: "sk-test",
          context_window: 1_000_000,
        },
      ],
    }),
  );
  for (const [name, text] of Object.entries(options.namedAgents ?? {})) {
    const dir = agentNamedAgentsDir(dataRoot, DEFAULT_AGENT_ID);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${name}.md`), text);
  }
  const config = options.config ?? EXTENDED;
  const agent = await createAgent({ dataRoot, logger: { warn: () => {} }, config });
  const location = { tracesDir: join(dataRoot, "traces"), scratchpadRoot: join(dataRoot, "scratchpad") };
  return {
    root,
    dataRoot,
    workspaceDir,
    llm,
    agent,
    location,
    /** The requests of the agent whose instructions hold `marker`. */
    requestsOf(marker: string) {
      return llm.requests.filter(
        (request) => request.body !== undefined && systemOf(request.body).includes(marker),
      );
    },
    /** A session's own events of one type (not its children's, relayed with an origin). */
    events<T>(sessionId: string, type: string): T[] {
      return sessionRecords(location, sessionId)
        .filter((m: OmniMessage) => m.origin === undefined && m.type === "event_msg" && kind(m) === type)
        .map((m) => m.payload as T);
    },
    async cleanup() {
      await llm.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export const launch = (id: string, task: string, definition: Record<string, unknown>) => ({
  id,
  name: "launch_agent",
  arguments: { task, agent_definition: definition },
});
export const launchNamed = (id: string, task: string, agent: string) => ({
  id,
  name: "launch_agent",
  arguments: { task, agent },
});
export const send = (id: string, to: string, text: string) => ({
  id,
  name: "send_message",
  arguments: { to, text },
});
export const wait = (id: string, timeout_ms: number) => ({
  id,
  name: "wait_messages",
  arguments: { timeout_ms },
});
export const stop = (id: string, agent_run_id: string) => ({
  id,
  name: "stop_agent",
  arguments: { agent_run_id },
});
export const exec = (id: string, cmd: string, yield_time_ms = 30_000) => ({
  id,
  name: "exec_command",
  arguments: { description: "run it", cmd, yield_time_ms },
});

/** The payload fields of the message events the tests compare across traces. */
export interface MessageEvent {
  type: string;
  message_id: string;
  from: string;
  to: string;
  text: string;
  sent_at: string;
  tool_call_id: string;
}
