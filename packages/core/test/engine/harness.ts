import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  assistantText,
  emptyTokenCounts,
  type OmniMessage,
  partialText,
  partialToolCall,
  type StopReason,
  toolCall,
  userText,
} from "@penguin/protocol";
import { DEFAULT_GUARDRAIL_RULES, type ToolDefinitionConfig } from "@penguin/state";
import type { ApproveFn, Approver } from "../../src/approval/approver.js";
import { approverOf } from "../../src/approval/approver-of.js";
import { SessionRules } from "../../src/approval/session-rules.js";
import {
  type AgentLoopOptions,
  runTask,
  SteeringQueue,
  type TaskOutcome,
} from "../../src/engine/agent-loop.js";
import type { ConversationState, ModelMessage } from "../../src/engine/types.js";
import { Environment } from "../../src/environment/environment.js";
import type { BuiltinTool } from "../../src/environment/types.js";
import { sleepUnlessAborted } from "../../src/models/abort.js";
import type { ModelAdapter, ModelOutcome, ModelRequest } from "../../src/models/types.js";
import { ProcessManager } from "../../src/processes/process-manager.js";

/** One scripted model reply for the test adapter. */
export interface TestTurn {
  text?: string;
  calls?: { name: string; args: string | Record<string, unknown>; id?: string }[];
  /** End the stream with this status instead of completing (after the content above). */
  fail?: StopReason;
  retryAfterMs?: number;
  permanent?: boolean;
  /** Pause before each streamed item (lets tools and interrupts interleave). */
  delayMs?: number;
  usage?: { total: number; output: number };
}

/** A model adapter that plays `turns` and records every request it received. */
export function testModel(turns: TestTurn[], info: Partial<ModelAdapter["info"]> = {}) {
  const requests: ModelRequest[] = [];
  let next = 0;
  const adapter: ModelAdapter = {
    info: { provider: "test", modelId: "scripted", vision: false, ...info },
    async *stream(request): AsyncGenerator<OmniMessage, ModelOutcome> {
      requests.push(structuredClone({ ...request, signal: undefined }));
      const turn = turns[next++] ?? { text: "(script exhausted)" };
      const usage = turn.usage
        ? { ...emptyTokenCounts(), ...turn.usage }
        : { ...emptyTokenCounts(), total: 10, output: 2 };
      const pause = async () => {
        if (turn.delayMs) await sleepUnlessAborted(turn.delayMs, request.signal);
        return request.signal?.aborted === true;
      };
      if (await pause()) return { status: "aborted", errorMessage: "aborted", usage: emptyTokenCounts() };
      if (turn.text !== undefined) {
        yield partialText("start");
        for (const piece of turn.text.match(/.{1,4}/gs) ?? []) {
          yield partialText("delta", piece);
          if (await pause()) return { status: "aborted", errorMessage: "aborted", usage: emptyTokenCounts() };
        }
        yield partialText("stop");
        if (turn.fail === undefined) yield assistantText(turn.text);
      }
      for (const [n, call] of (turn.calls ?? []).entries()) {
        const id = call.id ?? `call_${next}_${n}`;
        const args = typeof call.args === "string" ? call.args : JSON.stringify(call.args);
        yield partialToolCall("start", id, "", call.name);
        yield partialToolCall("delta", id, args);
        yield partialToolCall("stop", id);
        yield toolCall(call.name, args, id);
        if (await pause()) return { status: "aborted", errorMessage: "aborted", usage: emptyTokenCounts() };
      }
      if (turn.fail) {
        return {
          status: turn.fail,
          errorMessage: `scripted ${turn.fail}`,
          retryAfterMs: turn.retryAfterMs,
          permanent: turn.permanent,
          usage,
        };
      }
      return { status: "completed", usage };
    },
  };
  return { adapter, requests };
}

function definition(name: string, permission: "r" | "rw", timeoutMs = 10_000): ToolDefinitionConfig {
  return {
    name,
    description: `${name} (test tool)`,
    parameters: {
      type: "object",
      properties: { text: { type: "string" }, ms: { type: "number" } },
      required: ["text"],
    },
    permission,
    timeoutMs,
    maxOutputLength: 16_000,
  };
}

/** `echo`: waits `ms` (stopping on interrupt), then outputs `text`. `fail`: throws. */
export const testTools: BuiltinTool[] = [
  {
    name: "echo",
    definition: definition("echo", "r"),
    async *execute(args, ctx) {
      const ms = typeof args.ms === "number" ? args.ms : 0;
      if (ms > 0 && (await sleepUnlessAborted(ms, ctx.signal)) === "aborted")
        return { stopReason: "aborted" };
      yield {
        timestamp: new Date().toISOString(),
        type: "model_msg",
        payload: {
          type: "partial_tool_call_output",
          event_type: "delta",
          tool_call_id: ctx.toolCallId,
          output: String(args.text),
        },
      };
    },
  },
  {
    name: "fail",
    definition: definition("fail", "rw"),
    // biome-ignore lint/correctness/useYield: a tool that throws before it yields anything
    async *execute(args) {
      throw new Error(`failing on purpose: ${String(args.text)}`);
    },
  },
];

export interface EngineRun {
  messages: OmniMessage[];
  recorded: OmniMessage[];
  outcome: TaskOutcome;
}

/** A real Environment in a temp workspace, and a conversation that lasts across tasks. */
export function createTestSession(
  model: ModelAdapter,
  extra: Partial<AgentLoopOptions> = {},
  tools: BuiltinTool[] = testTools,
) {
  const dir = mkdtempSync(join(tmpdir(), "penguin-engine-"));
  const processes = new ProcessManager();
  const environment = new Environment({
    tools,
    sessionId: "test-session",
    workspaceDir: dir,
    scratchpadDir: join(dir, ".scratchpad"),
    processes,
    warn: () => {},
  });
  const state: ConversationState = {
    messages: [],
    sessionTokens: emptyTokenCounts(),
    turns: 0,
    activeMs: 0,
    pendingNotes: [],
  };
  const rules = new SessionRules();
  const steering = new SteeringQueue();
  const recorded: OmniMessage[] = [];
  const toolSpecs = environment.toolSpecs();
  return {
    dir,
    state,
    steering,
    recorded,
    environment,
    async run(
      text: string,
      approve: ApproveFn | Approver | undefined,
      options: {
        signal?: AbortSignal;
        onMessage?: (m: OmniMessage) => void;
        loop?: Partial<AgentLoopOptions>;
      } = {},
    ): Promise<EngineRun> {
      const messages: OmniMessage[] = [];
      const start = recorded.length;
      const generator = runTask(
        {
          model,
          tools: environment,
          toolSpecs,
          systemPrompt: "You are a test.",
          thinkingLevel: "none",
          state,
          approve: approverOf(approve),
          gate: {
            guardrail: DEFAULT_GUARDRAIL_RULES,
            rules,
            permissionOf: (name) => toolSpecs.find((t) => t.name === name)?.permission,
          },
          signal: options.signal ?? new AbortController().signal,
          retry: { maxRetries: 5, baseDelayMs: 1, maxDelayMs: 4 },
          steering,
          record: (m) => recorded.push(m),
          ...extra,
          ...options.loop,
        },
        [userText(text, { sender: "user" }) as ModelMessage],
      );
      let step = await generator.next();
      while (!step.done) {
        messages.push(step.value);
        options.onMessage?.(step.value);
        step = await generator.next();
      }
      return { messages, recorded: recorded.slice(start), outcome: step.value };
    },
    async dispose() {
      await environment.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const payloadTypes = (messages: OmniMessage[]) =>
  messages
    .filter((m) => m.type !== "model_msg" || !m.payload.type.startsWith("partial_"))
    .map((m) => m.payload.type as string);

export function eventsOf<T extends string>(messages: OmniMessage[], type: T) {
  return messages
    .filter((m) => m.type === "event_msg" && m.payload.type === type)
    .map((m) => m.payload as { type: T } & Record<string, unknown>);
}
