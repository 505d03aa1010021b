import type { OmniMessage } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { collect, MODEL, RETRY_FAST, setup } from "../sdk/fixtures.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";

// A model stream cut partway (or a connection closed before any response) is a server that
// answered and a connection that dropped: a transient break, retried. Only a connection that
// never opened sends the user to check that the server runs. The retried request carries the
// [turn_retried] note with what the failed attempt had already streamed, so the model keeps it.

const start = cleanedUpAfterEach(setup);

const firstFailure = (messages: OmniMessage[]) =>
  messages
    .map((m) => m.payload as { type: string; status?: string; error_message?: string })
    .find((p) => p.type === "request_end" && p.status !== "completed");

async function runOnce(env: Awaited<ReturnType<typeof setup>>) {
  const session = await env.agent.createSession({
    workspaceDir: env.workspaceDir,
    model: MODEL,
    retry: RETRY_FAST,
  });
  const messages = await collect(session.run("Go.", { approve: allowAll }));
  await session.dispose();
  return messages;
}

/** The text of the last user message of request `n`, whichever wire protocol carried it. */
function lastUserText(env: Awaited<ReturnType<typeof setup>>, n: number): string {
  const body = env.llm.requests[n]?.body as { messages: { role: string; content: unknown }[] };
  const last = body.messages.filter((m) => m.role === "user").at(-1);
  return typeof last?.content === "string" ? last.content : JSON.stringify(last?.content);
}

describe.each(["openai", "anthropic"] as const)("a dropped model connection (%s wire)", (api) => {
  it("reports a stream cut partway as a dropped connection, not as a server to check", async () => {
    const env = await start(
      [{ text: "Half an answer here", chunk_size: 4, cut: { after_chunks: 2 } }, { text: "Whole answer." }],
      { api },
    );
    const messages = await runOnce(env);
    const failure = firstFailure(messages);
    expect(failure?.error_message).toMatch(
      /^the connection to fake at http:\/\/127\.0\.0\.1:\d+\S* dropped before the reply was complete \(.+\): the server answered, then the connection closed$/,
    );
    expect(failure?.error_message).not.toMatch(/cannot reach|check that it is running/);
    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
  });

  it("reports a connection closed before any response as dropped too", async () => {
    const env = await start([{ text: "never sent", cut: { after_chunks: 0 } }, { text: "Whole answer." }], {
      api,
    });
    const failure = firstFailure(await runOnce(env));
    expect(failure?.error_message).toContain("dropped before the reply was complete");
    expect(failure?.error_message).not.toMatch(/cannot reach/);
  });

  it("still reports a refused connection as a server to check, with its address", async () => {
    const env = await start([{ text: "unused" }], { api });
    await env.llm.close(); // nothing listens on the port any more: connections are refused
    const messages = await runOnce(env);
    const failure = firstFailure(messages);
    expect(failure?.error_message).toMatch(
      /^cannot reach fake at http:\/\/127\.0\.0\.1:\d+\S* \(ECONNREFUSED\): check that it is running/,
    );
    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "failed" });
  });

  it("gives the retried request the note with what the failed attempt had streamed: its text and the call it was still writing", async () => {
    const env = await start(
      [
        {
          text: "Let me look.",
          tool_calls: [
            { id: "call_cut", name: "exec_command", arguments: { description: "List", cmd: "ls -la" } },
          ],
          chunk_size: 6,
          // The text (3 pieces) and part of the call's arguments, then the connection drops.
          cut: { after_chunks: 6 },
        },
        { text: "Whole answer." },
      ],
      { api },
    );
    const messages = await runOnce(env);
    expect(env.llm.requests).toHaveLength(2);
    const note = lastUserText(env, 1);
    expect(note).toContain("[turn_retried]");
    expect(note).toContain("dropped before the reply was complete");
    expect(note).toContain("assistant: Let me look.");
    expect(note).toMatch(/tool call exec_command \(cut off, not run\): \{\\*"description/);
    // The call the stream broke off in was never approved or run.
    expect(messages.some((m) => (m.payload as { type: string }).type === "tool_call_output")).toBe(false);
    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
  });
});
