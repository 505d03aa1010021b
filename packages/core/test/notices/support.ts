import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeLlm } from "@penguin/fake-llm";
import type { OmniMessage } from "@penguin/protocol";
import { agentEventHandlersDir, DEFAULT_AGENT_ID, workspaceEventHandlersDir } from "@penguin/state";
import type { Session } from "../../src/sdk/session.js";
import type { WakeRunOptions } from "../../src/sdk/session-wake.js";
import { collect, kind } from "../subagent/fixtures.js";

// Event handler files and what the tests read back: the notice events of a session's stream or
// trace, and the messages the fake model received.

/** Writes `<folder>/<name>.md` with the front matter given and the guidance as the body. */
export function writeHandler(folder: string, name: string, front: Record<string, string>, guidance = "") {
  mkdirSync(folder, { recursive: true });
  const lines = Object.entries(front).map(([key, value]) => `${key}: ${value}`);
  writeFileSync(join(folder, `${name}.md`), `---\n${lines.join("\n")}\n---\n${guidance}\n`);
}

/** The agent's own handlers folder (the default agent of a test data root). */
export const ownHandlers = (dataRoot: string) => agentEventHandlersDir(dataRoot, DEFAULT_AGENT_ID);
export const workspaceHandlers = (workspaceDir: string) => workspaceEventHandlersDir(workspaceDir);

export interface DeliveredEvent {
  notice_id: string;
  notice_type: string;
  handler: string;
  delivery: "queue" | "wake";
  summary: string;
  data?: unknown;
  dropped_before?: number;
}

export const delivered = (records: readonly OmniMessage[]) =>
  records
    .filter((m) => m.type === "event_msg" && kind(m) === "notice_delivered")
    .map((m) => m.payload as unknown as DeliveredEvent);

export const warnings = (records: readonly OmniMessage[]) =>
  records
    .filter((m) => m.type === "event_msg" && kind(m) === "warning")
    .map((m) => (m.payload as { message: string }).message);

interface ChatMessage {
  role: string;
  content?: unknown;
}

/** The text of a chat message (a string, or the text parts of a list). */
export function textOf(message: ChatMessage): string {
  if (typeof message.content === "string") return message.content;
  if (Array.isArray(message.content)) {
    return message.content.map((part: { text?: string }) => part.text ?? "").join("");
  }
  return "";
}

/** The messages of the fake model's `n`-th request. */
export function requestMessages(llm: FakeLlm, n: number): ChatMessage[] {
  const request = llm.requests[n];
  if (!request) throw new Error(`the model got no request ${n} (it got ${llm.requests.length})`);
  return (request.body as { messages: ChatMessage[] }).messages;
}

/** Every wake turn the session starts, read to its end with every call allowed. */
export function readWakeTurns(session: Session, options: WakeRunOptions) {
  const runs: Promise<OmniMessage[]>[] = [];
  session.onWake((turn) => {
    runs.push(collect(turn.run(options)));
  });
  return runs;
}

/** Resolves once `check` holds, polling; fails after `ms`. */
export async function until(check: () => boolean, ms = 10_000, what = "the condition") {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
