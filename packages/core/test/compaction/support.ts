import type { ScriptTurnInput } from "@penguin/fake-llm";
import type { OmniMessage } from "@penguin/protocol";
import type { chatMessages } from "../sdk/fixtures.js";

/** The compaction prompt the tests configure: a marker the fake model recognizes the request by. */
export const COMPACT_PROMPT =
  "COMPACTION REQUEST: summarize the conversation between [summary] and [/summary].";

type Body = Record<string, unknown>;

/** The text of a chat message, whatever shape its content has. */
export function contentText(message: { content?: unknown } | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  return JSON.stringify(content ?? "");
}

/** Whether a request is a compaction request: its last message carries the compaction prompt. */
export function asksForSummary(body: Body): boolean {
  const messages = (body.messages ?? []) as { content?: unknown }[];
  // The prompt may be followed by the corrective note of a retry.
  return messages.slice(-2).some((message) => contentText(message).includes("COMPACTION REQUEST"));
}

/**
 * fake-llm's `pick` for compaction requests: the given replies in order, then `fallback` for
 * every later one. Other requests play the script.
 */
export function summaryReplies(replies: ScriptTurnInput[], fallback?: ScriptTurnInput) {
  let asked = 0;
  return {
    get asked() {
      return asked;
    },
    pick: (body: Body): ScriptTurnInput | undefined => {
      if (!asksForSummary(body)) return undefined;
      const reply = replies[asked] ?? fallback ?? { text: `[summary]Summary number ${asked + 1}.[/summary]` };
      asked++;
      return reply;
    },
  };
}

/** A turn that runs one shell command printing `chars` characters. */
export function printTurn(id: string, chars: number): ScriptTurnInput {
  return {
    text: `Step ${id}.`,
    tool_calls: [
      {
        id,
        name: "exec_command",
        arguments: { description: "print", cmd: `head -c ${chars} /dev/zero | tr '\\0' x; echo` },
      },
    ],
  };
}

export const payloadType = (m: OmniMessage) =>
  m.type === "session_meta" ? "session_meta" : (m.payload as { type: string }).type;

export function eventsOf(messages: OmniMessage[], type: string): Record<string, unknown>[] {
  return messages.filter((m) => payloadType(m) === type).map((m) => m.payload as Record<string, unknown>);
}

export type ChatMessage = ReturnType<typeof chatMessages>[number];
