import { scratchpadRoot, tracesDir } from "@penguin/state";
import { readSession, rebuildContext } from "@penguin/trace";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import type { Session } from "../../src/sdk/session.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { chatMessages, collect, kind, MODEL, RETRY_FAST, setup } from "./fixtures.js";

// Input that `steer` accepted reaches the model even when the task ends before a request takes it:
// through the SDK against fake-llm over HTTP, with the trace on disk.

const start = cleanedUpAfterEach(setup);
type Env = Awaited<ReturnType<typeof setup>>;

const steering = (text: string) => `[user_steering]\n${text}\n[/user_steering]`;
const slowCommand = {
  id: "call_slow",
  name: "exec_command",
  arguments: { description: "wait", cmd: "sleep 0.3; echo slept" },
};
const contentOf = (message: { content?: unknown } | undefined) =>
  typeof message?.content === "string" ? message.content : JSON.stringify(message?.content);

/** The context a resume of the session would send: its rebuilt messages' texts. */
function resumedTexts(env: Env, session: Session): string[] {
  const location = { tracesDir: tracesDir(env.dataRoot), scratchpadRoot: scratchpadRoot(env.dataRoot) };
  return rebuildContext(readSession(location, session.id).records).messages.flatMap((m) =>
    m.payload.type === "text" ? [m.payload.text] : [],
  );
}

describe("steering the task did not take is kept for the next run", () => {
  it("a task stopped by max_turns: the steering is in the next run's first request, before its input, and in the trace", async () => {
    const env = await start([{ tool_calls: [slowCommand] }, { text: "Done with both." }]);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
      maxTurns: 1,
    });
    let accepted = false;
    const first = await collect(session.run("Wait a bit.", { approve: allowAll }), (m) => {
      if (kind(m) === "approval_decision") accepted = session.steer("also say hello");
    });
    expect(accepted).toBe(true);
    expect(first.at(-1)?.payload).toMatchObject({ type: "task_end", status: "aborted" });
    expect(first.find((m) => kind(m) === "limit_reached")?.payload).toMatchObject({ limit: "max_turns" });
    // Yielded (and traced) before the limit and the task's end, where a front end shows it.
    const held = first.findIndex((m) => (m.payload as { text?: string }).text === steering("also say hello"));
    expect(held).toBeGreaterThan(-1);
    expect(held).toBeLessThan(first.findIndex((m) => kind(m) === "limit_reached"));

    await collect(session.run("Next.", { approve: allowAll }));
    await session.dispose();
    expect(env.llm.requests).toHaveLength(2);
    const sent = chatMessages(env.llm, 1);
    expect(contentOf(sent.at(-1))).toBe(`${steering("also say hello")}\n\nNext.`);
    expect(resumedTexts(env, session)).toContain(steering("also say hello"));
  });

  it("a task that failed while steering waited: the next run delivers it", async () => {
    const env = await start([
      { text: "This answer breaks off here", chunk_size: 4, chunk_delay_ms: 30, cut: { after_chunks: 3 } },
      { text: "Hello." },
    ]);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: { maxRetries: 0 },
    });
    let accepted = false;
    const first = await collect(session.run("Answer.", { approve: allowAll }), (m) => {
      if (kind(m) === "partial_text" && !accepted) accepted = session.steer("be brief");
    });
    expect(accepted).toBe(true);
    expect(first.at(-1)?.payload).toMatchObject({ type: "task_end", status: "failed" });

    await collect(session.run("Again.", { approve: allowAll }));
    await session.dispose();
    const sent = chatMessages(env.llm, 1);
    expect(contentOf(sent.at(-1))).toContain(steering("be brief"));
    expect(contentOf(sent.at(-1))).toMatch(/Again\.$/);
    expect(resumedTexts(env, session)).toContain(steering("be brief"));
  });

  it("steering sent while the caller handles task_end: kept in the trace, yielded first by the next run, and sent with its request", async () => {
    const env = await start([{ text: "First." }, { text: "Second." }]);
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    let accepted = false;
    await collect(session.run("One.", { approve: allowAll }), (m) => {
      if (kind(m) === "task_end") accepted = session.steer("one more thing");
    });
    expect(accepted).toBe(true);
    // Traced at once: a resume now would send it too.
    expect(resumedTexts(env, session).at(-1)).toBe(steering("one more thing"));

    const second = await collect(session.run("Two.", { approve: allowAll }));
    await session.dispose();
    expect(second[0].payload).toMatchObject({ type: "text", text: steering("one more thing") });
    const sent = chatMessages(env.llm, 1);
    expect(sent.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(contentOf(sent.at(-1))).toBe(`${steering("one more thing")}\n\nTwo.`);
    // Recorded once, not again when the next run yielded it.
    expect(resumedTexts(env, session).filter((t) => t === steering("one more thing"))).toHaveLength(1);
  });
});
