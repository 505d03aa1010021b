import { writeFileSync } from "node:fs";
import type { FakeLlmScript } from "@penguin/fake-llm";
import type { OmniMessage } from "@penguin/protocol";
import type { SystemConfigInput } from "@penguin/state";
import { createAgent } from "../../src/sdk/agent.js";
import { chatMessages, collect, MODEL, RETRY_FAST, setup, traceRecords } from "../sdk/fixtures.js";

// A session of an agent configured in code, against fake-llm over HTTP, in a temp data root and
// workspace: what the model received is read back from the fake server.

export { chatMessages, collect, traceRecords };

export type Stack = Awaited<ReturnType<typeof stack>>;

export async function stack(script: FakeLlmScript, config: SystemConfigInput = {}) {
  const env = await setup(script);
  const warnings: string[] = [];
  const agent = await createAgent({
    dataRoot: env.dataRoot,
    config,
    logger: { warn: (line) => warnings.push(line) },
  });
  return {
    ...env,
    agent,
    warnings,
    session: () => agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL, retry: RETRY_FAST }),
  };
}

export const payloadsOf = (messages: readonly OmniMessage[], type: string) =>
  messages
    .filter((m) => m.type !== "session_meta" && (m.payload as { type: string }).type === type)
    .map((m) => m.payload as Record<string, unknown>);

/** A shell script file (for hooks whose command is easier to read as a file). */
export function script(path: string, body: string): string {
  writeFileSync(path, `#!/usr/bin/env bash\n${body}\n`, { mode: 0o755 });
  return path;
}

/** The text of the tool message the model received in request `n` for `toolCallId`. */
export function toolMessage(env: Stack, n: number, toolCallId: string): string {
  const message = chatMessages(env.llm, n).find((m) => m.role === "tool" && m.tool_call_id === toolCallId);
  return String(message?.content ?? "");
}
