import type { OmniMessage } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import type { UserQuestion } from "../../src/tools/messaging/index.js";
import {
  CHILD_MODEL,
  collect,
  inputSubagent,
  kind,
  MODEL,
  outputOf,
  RETRY_FAST,
  runSubagent,
  sessionRecords,
  setup,
  traceRecords,
} from "../subagent/fixtures.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";

// `ask` through real sessions: the models are fake-llm over HTTP (a child on the second server),
// the answers come from the SDK's onAsk or from the parent agent's send_message with reply_to,
// and the traces are read back from disk.

const start = cleanedUpAfterEach(setup);
const EXTENDED = { tools: { preset: "extended" as const } };

const ask = (id: string, question: string, timeout_ms?: number) => ({
  id,
  name: "ask",
  arguments: timeout_ms === undefined ? { question } : { question, timeout_ms },
});
const send = (id: string, to: string, text: string, reply_to?: string) => ({
  id,
  name: "send_message",
  arguments: reply_to === undefined ? { to, text } : { to, text, reply_to },
});
const wait = (id: string, timeout_ms: number) => ({ id, name: "wait_messages", arguments: { timeout_ms } });

/** A session's own events of `type` (not its children's, relayed with an origin), as payloads. */
function events(records: OmniMessage[], type: string): Record<string, unknown>[] {
  return records
    .filter((m) => m.origin === undefined && m.type === "event_msg" && kind(m) === type)
    .map((m) => m.payload as unknown as Record<string, unknown>);
}

describe("ask to the parent agent", () => {
  it("child asks parent and parent answers with reply_to: the child's ask returns the answer", async () => {
    const env = await start(
      [
        {
          tool_calls: [
            runSubagent("call_run", { prompt: "Ask me which branch.", yield_time_ms: 0, ...CHILD_MODEL }),
          ],
        },
        { tool_calls: [wait("call_wait", 20_000)] },
        // A reply_to that names no open question of the recipient is refused.
        { tool_calls: [send("call_wrong", "sub_1", "main", "q_9")] },
        { tool_calls: [send("call_answer", "sub_1", "Use the release branch.", "q_1")] },
        { tool_calls: [inputSubagent("call_join", { subagent_id: "sub_1", yield_time_ms: 20_000 })] },
        // Answered already: a second answer is refused too.
        { tool_calls: [send("call_again", "sub_1", "again", "q_1")] },
        { text: "done" },
      ],
      {
        config: EXTENDED,
        childScript: [
          { tool_calls: [ask("child_ask", "Which branch should I use?", 20_000)] },
          // The answer went to the ask, not into the inbox: nothing waits there.
          { tool_calls: [wait("child_wait", 0)] },
          { text: "child done" },
        ],
      },
    );
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const yielded = await collect(session.run("Work with a child.", { approve: allowAll }));
    const childId = session.subagents[0]!.sessionId;
    const tracePath = session.tracePath;
    await session.dispose();

    // The root read the question in its inbox, marked with its id and how to answer it.
    const received = outputOf(yielded, "call_wait");
    expect(received.output).toMatch(
      /^1 message:\n\n\[msg_\d+\] question q_1 from sub_1 at [^ ]+ \(it waits for your answer: send_message to "sub_1" with reply_to "q_1"\):\nWhich branch should I use\?/,
    );
    const wrong = outputOf(yielded, "call_wrong");
    expect(wrong.stop_reason).toBe("failed");
    expect(wrong.output).toContain('reply_to "q_9" names no open question');
    expect(outputOf(yielded, "call_answer")).toMatchObject({ stop_reason: "completed" });
    expect(outputOf(yielded, "call_answer").output).toMatch(/^Message msg_\d+ answered q_1 of sub_1\.$/);
    expect(outputOf(yielded, "call_again").stop_reason).toBe("failed");

    // The child's model read the answer as its ask's output, and its inbox stayed empty.
    const childBodies = env.llm2.requests.map((r) => r.rawBody);
    expect(childBodies.some((b) => b.includes("Answer to q_1 from root:\\nUse the release branch."))).toBe(
      true,
    );
    expect(childBodies.some((b) => b.includes("No message arrived for sub_1 within 0 ms."))).toBe(true);

    // The asker's trace has the question and its answer; the root's, the question it read and
    // the answer it sent, connected by the question id.
    const childTrace = sessionRecords(env.location, childId);
    expect(events(childTrace, "question_asked")).toEqual([
      {
        type: "question_asked",
        question_id: "q_1",
        from: "sub_1",
        to: "root",
        text: "Which branch should I use?",
        tool_call_id: "child_ask",
      },
    ]);
    expect(events(childTrace, "question_answered")).toEqual([
      {
        type: "question_answered",
        question_id: "q_1",
        from: "root",
        text: "Use the release branch.",
        tool_call_id: "child_ask",
      },
    ]);
    const rootTrace = traceRecords(tracePath);
    expect(events(rootTrace, "message_delivered")).toEqual([
      expect.objectContaining({ question_id: "q_1", from: "sub_1", to: "root", tool_call_id: "call_wait" }),
    ]);
    expect(events(rootTrace, "message_sent")).toEqual([
      expect.objectContaining({
        reply_to: "q_1",
        from: "root",
        to: "sub_1",
        text: "Use the release branch.",
      }),
    ]);
  });

  it("withdraws a question nobody answered in time: the child reads that, and a late answer is refused", async () => {
    const env = await start(
      [
        {
          tool_calls: [runSubagent("call_run", { prompt: "Ask me.", yield_time_ms: 20_000, ...CHILD_MODEL })],
        },
        { tool_calls: [send("call_late", "sub_1", "too late", "q_1"), wait("call_wait", 0)] },
        { text: "done" },
      ],
      {
        config: EXTENDED,
        childScript: [{ tool_calls: [ask("child_ask", "Anyone there?", 100)] }, { text: "child done" }],
      },
    );
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const yielded = await collect(session.run("Work with a child.", { approve: allowAll }));
    await session.dispose();

    const childBodies = env.llm2.requests.map((r) => r.rawBody);
    expect(
      childBodies.some((b) =>
        b.includes("No answer to q_1 from root within 100 ms; the question is withdrawn"),
      ),
    ).toBe(true);
    expect(outputOf(yielded, "call_late").stop_reason).toBe("failed");
    expect(outputOf(yielded, "call_late").output).toContain('reply_to "q_1" names no open question');
    // The withdrawn question left the root's inbox unread.
    expect(outputOf(yielded, "call_wait").output).toBe("No message arrived for root within 0 ms.");
  });
});

describe("question ids", () => {
  it("a resumed session numbers its questions past its children's, as message ids are", async () => {
    const env = await start(
      [
        {
          tool_calls: [runSubagent("call_run", { prompt: "Ask me.", yield_time_ms: 20_000, ...CHILD_MODEL })],
        },
        { text: "first done" },
        { tool_calls: [ask("call_ask", "And now?")] },
        { text: "second done" },
      ],
      {
        config: EXTENDED,
        // Nobody answers the child: its question q_1 is withdrawn after 50 ms.
        childScript: [{ tool_calls: [ask("child_ask", "Anyone?", 50)] }, { text: "child done" }],
      },
    );
    const first = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    await collect(first.run("Start a child.", { approve: allowAll }));
    await first.dispose();

    const resumed = await env.agent.resumeSession(first.id, { onAsk: async (q) => `answer to ${q.id}` });
    const yielded = await collect(resumed.run("Ask.", { approve: allowAll }));
    await resumed.dispose();
    expect(outputOf(yielded, "call_ask").output).toBe("Answer to q_2 from user:\nanswer to q_2");
  });
});

describe("ask to the user", () => {
  it("ask answered from the SDK: onAsk of createSession answers, and the trace records both events", async () => {
    const env = await start(
      [{ tool_calls: [ask("call_ask", "Deploy to staging or production?")] }, { text: "ok" }],
      {
        config: EXTENDED,
      },
    );
    const asked: UserQuestion[] = [];
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      onAsk: async (question) => {
        asked.push(question);
        return "staging, please";
      },
    });
    const yielded = await collect(session.run("Deploy it.", { approve: allowAll }));
    const tracePath = session.tracePath;
    await session.dispose();

    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      id: "q_1",
      text: "Deploy to staging or production?",
      sessionId: session.id,
      toolCallId: "call_ask",
    });
    expect(outputOf(yielded, "call_ask")).toEqual(
      expect.objectContaining({
        stop_reason: "completed",
        output: "Answer to q_1 from user:\nstaging, please",
      }),
    );
    const trace = traceRecords(tracePath);
    expect(events(trace, "question_asked")).toEqual([
      {
        type: "question_asked",
        question_id: "q_1",
        from: "root",
        to: "user",
        text: "Deploy to staging or production?",
        tool_call_id: "call_ask",
      },
    ]);
    expect(events(trace, "question_answered")).toEqual([
      {
        type: "question_answered",
        question_id: "q_1",
        from: "user",
        text: "staging, please",
        tool_call_id: "call_ask",
      },
    ]);
  });

  it("a run's onAsk answers instead of the session's, and a resumed session numbers questions on", async () => {
    const env = await start(
      [
        { tool_calls: [ask("call_1", "First?")] },
        { text: "one" },
        { tool_calls: [ask("call_2", "Second?")] },
        { text: "two" },
      ],
      { config: EXTENDED },
    );
    const first = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      onAsk: async () => "from the session",
    });
    const one = await collect(first.run("Ask.", { approve: allowAll, onAsk: async () => "from the run" }));
    await first.dispose();
    expect(outputOf(one, "call_1").output).toBe("Answer to q_1 from user:\nfrom the run");

    const resumed = await env.agent.resumeSession(first.id, { onAsk: async (q) => `answer to ${q.id}` });
    const two = await collect(resumed.run("Ask again.", { approve: allowAll }));
    await resumed.dispose();
    expect(outputOf(two, "call_2").output).toBe("Answer to q_2 from user:\nanswer to q_2");
  });

  it("ask with nobody to answer: an SDK session without onAsk fails the call with a clear message", async () => {
    const env = await start([{ tool_calls: [ask("call_ask", "Which one?")] }, { text: "ok" }], {
      config: EXTENDED,
    });
    const session = await env.agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
    const yielded = await collect(session.run("Go.", { approve: allowAll }));
    const tracePath = session.tracePath;
    await session.dispose();

    const output = outputOf(yielded, "call_ask");
    expect(output.stop_reason).toBe("failed");
    expect(output.output).toMatch(/^no one can answer questions in this session: /);
    expect(events(traceRecords(tracePath), "question_asked")).toEqual([]);
  });

  it("an answerer that rejects fails the call with its reason", async () => {
    const env = await start([{ tool_calls: [ask("call_ask", "Which one?")] }, { text: "ok" }], {
      config: EXTENDED,
    });
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      onAsk: async () => {
        throw new Error("the user closed the window");
      },
    });
    const yielded = await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    expect(outputOf(yielded, "call_ask")).toEqual(
      expect.objectContaining({
        stop_reason: "failed",
        output: "q_1 was not answered: the user closed the window",
      }),
    );
  });

  it("interrupt during ask: the call ends at once and the answerer's signal aborts", async () => {
    const env = await start([{ tool_calls: [ask("call_ask", "Still there?")] }, { text: "never" }], {
      config: EXTENDED,
    });
    let answererSignal: AbortSignal | undefined;
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      // Never answers: only the interrupt ends the wait.
      onAsk: (question) => {
        answererSignal = question.signal;
        return new Promise<string>(() => {});
      },
    });
    const controller = new AbortController();
    const started = Date.now();
    const yielded = await collect(
      session.run("Go.", { approve: allowAll, signal: controller.signal }),
      (m) => {
        if (m.type === "event_msg" && kind(m) === "question_asked") setTimeout(() => controller.abort(), 50);
      },
    );
    await session.dispose();

    expect(Date.now() - started).toBeLessThan(10_000);
    expect(outputOf(yielded, "call_ask").stop_reason).toBe("aborted");
    expect(answererSignal?.aborted).toBe(true);
    const end = yielded.find((m) => m.type === "event_msg" && kind(m) === "task_end");
    expect(end?.payload).toMatchObject({ status: "aborted" });
  });

  it("a timeout ends the ask with a result the model reads, and the answerer's signal aborts", async () => {
    const env = await start([{ tool_calls: [ask("call_ask", "Quick?", 100)] }, { text: "went on" }], {
      config: EXTENDED,
    });
    let answererSignal: AbortSignal | undefined;
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      onAsk: (question) => {
        answererSignal = question.signal;
        return new Promise<string>(() => {});
      },
    });
    const yielded = await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();

    expect(outputOf(yielded, "call_ask")).toEqual(
      expect.objectContaining({
        stop_reason: "failed",
        output:
          "No answer to q_1 from user within 100 ms; the question is withdrawn (a late answer is refused). Go on without the answer, or ask again.",
      }),
    );
    expect(answererSignal?.aborted).toBe(true);
    // The task went on: the model read the result and replied.
    expect(env.llm.requests.at(-1)?.rawBody).toContain("No answer to q_1 from user within 100 ms");
  });
});
