import { join } from "node:path";
import type { FakeLlmScript } from "@penguin/fake-llm";
import type { OmniMessage } from "@penguin/protocol";
import { allowAll } from "../../src/approval/policies.js";
import type { RunOptions } from "../../src/sdk/session.js";
import { chatMessages, MODEL, RETRY_FAST, setup, traceRecords } from "../sdk/fixtures.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";

// Goal mode through the SDK: a real session against fake-llm over HTTP (OpenAI Chat), with the
// model's script written once the session's goal file path is known.

export const startEnv = cleanedUpAfterEach(setup);

export type Turns = Extract<FakeLlmScript, unknown[]>;

/** The script a test gives the model, from the path of the session's goal file. */
export type ScriptFor = (goalFile: string) => Turns;

export interface GoalRunOptions extends Omit<RunOptions, "approve"> {
  /** Sees every message; `abort` interrupts the run through its signal. */
  onMessage?: (m: OmniMessage, abort: () => void) => void;
  /** Stop reading the stream (a `break`) at the first message whose payload has this type. */
  stopAt?: string;
}

export async function runGoal(objective: string, scriptFor: ScriptFor, options: GoalRunOptions = {}) {
  const env = await startEnv([]);
  const session = await env.agent.createSession({
    workspaceDir: env.workspaceDir,
    model: MODEL,
    retry: RETRY_FAST,
  });
  const goalFile = join(session.scratchpadDir, "GOAL.yaml");
  env.llm.setScript(scriptFor(goalFile));
  const controller = new AbortController();
  const { onMessage, stopAt, ...runOptions } = options;
  const messages: OmniMessage[] = [];
  for await (const m of session.run(objective, {
    approve: allowAll,
    signal: controller.signal,
    goal: {},
    ...runOptions,
  })) {
    messages.push(m);
    onMessage?.(m, () => controller.abort());
    if (stopAt !== undefined && (m.payload as { type?: string }).type === stopAt) break;
  }
  await session.dispose();
  const requests = env.llm.requests.filter((r) => r.protocol === "openai-chat");
  return {
    env,
    session,
    goalFile,
    messages,
    trace: traceRecords(session.tracePath),
    requests,
    /** The chat messages of request `n` (0-based). */
    chat: (n: number) => chatMessages(env.llm, n),
  };
}

export const payloadsOf = (messages: readonly OmniMessage[], type: string) =>
  messages.map((m) => m.payload as { type: string } & Record<string, unknown>).filter((p) => p.type === type);

export const goalFinishedOf = (messages: readonly OmniMessage[]) => {
  const found = payloadsOf(messages, "goal_finished");
  if (found.length !== 1) throw new Error(`expected one goal_finished, got ${found.length}`);
  return found[0];
};

/** The model reads the goal file (as the write guard asks), then edits its status line. */
export function setStatus(goalFile: string, replacement: string): Turns {
  return [
    { tool_calls: [{ name: "read_file", arguments: { file_path: goalFile } }] },
    {
      tool_calls: [
        {
          name: "edit_file",
          arguments: { file_path: goalFile, old_string: "status: active", new_string: replacement },
        },
      ],
    },
  ];
}

/** The text of a chat message's content, whether a string or parts. */
export function contentText(message: { content?: unknown } | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (part as { text?: string }).text ?? "").join("");
  return "";
}
