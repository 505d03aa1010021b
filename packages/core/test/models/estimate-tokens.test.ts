import { assistantText, toolCall, toolCallOutput, userText } from "@penguin/protocol";
import { describe, expect, test } from "vitest";
import type { ModelRequest } from "../../src/models/types.js";
import { estimateRequestTokens } from "../../src/models/usage.js";

// The estimate behind compaction and max_tokens is made before every request over the whole
// context; what it counts must not change with how often it is made.

/** The estimate spelled out: the system prompt, each payload's JSON, the specs' JSON, four characters a token. */
function plainEstimate(systemPrompt: string, payloads: unknown[], tools: unknown[]): number {
  const chars =
    systemPrompt.length +
    payloads.reduce<number>((sum, payload) => sum + JSON.stringify(payload).length, 0) +
    (tools.length > 0 ? JSON.stringify(tools).length : 0);
  return Math.ceil(chars / 4);
}

describe("estimateRequestTokens", () => {
  test("counts each message and the tool specs as their JSON, however many times it is asked", () => {
    const systemPrompt = "You are a careful agent.";
    const tools: ModelRequest["tools"] = [
      {
        name: "exec_command",
        description: "Runs a command.",
        parameters: { type: "object", properties: {} },
        permission: "rw",
      },
      {
        name: "read_file",
        description: "Reads a file: ünïcode too.",
        parameters: { type: "object" },
        permission: "r",
      },
    ];
    const messages: ModelRequest["messages"] = [userText("List the files.")];
    for (let round = 0; round < 5; round++) {
      const request = { systemPrompt, messages: [...messages], tools: [...tools] };
      const expected = plainEstimate(
        systemPrompt,
        messages.map((message) => message.payload),
        tools,
      );
      expect(estimateRequestTokens(request)).toBe(expected);
      // Asked again (the engine does, before and while it builds a request): the same answer.
      expect(estimateRequestTokens(request)).toBe(expected);
      messages.push(
        toolCall("exec_command", { cmd: `echo ${round}` }, `call_${round}`),
        toolCallOutput(`call_${round}`, `${round}\n`.repeat(round * 50 + 1), "completed"),
      );
    }
    messages.push(assistantText("Done."));
    expect(estimateRequestTokens({ systemPrompt, messages, tools: [] })).toBe(
      plainEstimate(
        systemPrompt,
        messages.map((message) => message.payload),
        [],
      ),
    );
  });
});
