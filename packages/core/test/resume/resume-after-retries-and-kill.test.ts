import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@penguin/protocol";
import { scratchpadRoot, tracesDir } from "@penguin/state";
import { readSession, rebuildContext } from "@penguin/trace";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { chatMessages, collect, kind, MODEL, RETRY_FAST, setup } from "../sdk/fixtures.js";
import { spawnSession as spawnKilledSession } from "./session-process.js";

type Env = Awaited<ReturnType<typeof setup>>;
const envs: Env[] = [];
const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await Promise.all(envs.splice(0).map((e) => e.cleanup()));
});

async function start(...args: Parameters<typeof setup>) {
  const env = await setup(...args);
  envs.push(env);
  return env;
}

const exec = (cmd: string, id: string) => ({
  id,
  name: "exec_command",
  arguments: { description: "run", cmd },
});
type ChatMessage = ReturnType<typeof chatMessages>[number];
const requestMessages = (env: Env, n: number) => chatMessages(env.llm, n);
const textOf = (message: ChatMessage | undefined) =>
  typeof message?.content === "string" ? message.content : JSON.stringify(message?.content);

/** Every tool call the request carries is answered by exactly one tool message, right after its assistant turn. */
function expectEveryCallAnswered(messages: ChatMessage[]) {
  messages.forEach((message, index) => {
    const ids = (message.tool_calls ?? []).map((call) => call.id);
    if (ids.length === 0) return;
    const answers = messages.slice(index + 1, index + 1 + ids.length);
    expect(answers.map((m) => [m.role, m.tool_call_id])).toEqual(ids.map((id) => ["tool", id]));
  });
  const answered = messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id);
  expect(new Set(answered).size).toBe(answered.length);
}

/** The trace rebuilds into a context where every tool_call has its one output. */
function expectTraceResumable(env: Env, sessionId: string) {
  const location = { tracesDir: tracesDir(env.dataRoot), scratchpadRoot: scratchpadRoot(env.dataRoot) };
  const { records } = readSession(location, sessionId);
  const { messages, carryOver } = rebuildContext(records);
  const calls = messages
    .filter((m) => m.payload.type === "tool_call")
    .map((m) => (m.payload as { tool_call_id: string }).tool_call_id);
  const outputs = messages
    .filter((m) => m.payload.type === "tool_call_output")
    .map((m) => (m.payload as { tool_call_id: string }).tool_call_id);
  expect(outputs).toEqual(calls);
  expect(carryOver.interruption).toBe("none");
  return records;
}

describe("resume after retries", () => {
  it("continues with the context the live session had: the [turn_retried] notes as recorded, no assistant message of a failed attempt", async () => {
    const env = await start([
      { text: "Running it.", tool_calls: [exec("echo ran >> runs.txt", "call_once")] },
      { text: "Half an answer", chunk_size: 4, cut: { after_chunks: 1 } },
      { error: { status: 429, message: "slow down", retry_after: 0.01 } },
      { text: "Final answer." },
      { text: "Second task done." },
    ]);
    const live = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const first = await collect(live.run("Go.", { approve: allowAll }));
    await live.dispose();
    expect(first.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
    const lastLive = requestMessages(env, 3);

    const resumed = await env.agent.resumeSession(live.id);
    const second = await collect(resumed.run("Next.", { approve: allowAll }));
    await resumed.dispose();
    expect(second.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
    expect(env.llm.requests).toHaveLength(5);

    const afterResume = requestMessages(env, 4);
    // Byte for byte the context of the live session's last request, then its answer and the new prompt.
    expect(JSON.stringify(afterResume.slice(0, lastLive.length))).toBe(JSON.stringify(lastLive));
    expect(afterResume.slice(lastLive.length)).toEqual([
      { role: "assistant", content: "Final answer." },
      { role: "user", content: "Next." },
    ]);
    // Only committed replies are assistant messages; the failed attempts live in the notes.
    expect(afterResume.filter((m) => m.role === "assistant").map(textOf)).toEqual([
      "Running it.",
      "Final answer.",
    ]);
    const notes = textOf(afterResume.find((m) => m.role === "user" && textOf(m).includes("[turn_retried]")));
    expect(notes.match(/\[turn_retried\]/g)).toHaveLength(2);
    expect(notes).toContain("assistant: Half");
    expect(notes).toContain("HTTP 429: slow down");
    expectEveryCallAnswered(afterResume);
    expect(readFileSync(join(env.workspaceDir, "runs.txt"), "utf8")).toBe("ran\n");
    expectTraceResumable(env, live.id);
  });
});

const spawnSession = (env: Env, prompt: string) => spawnKilledSession(env, prompt, cleanups);

const payloadOf = (line: Record<string, unknown>) => (line.payload ?? {}) as Record<string, unknown>;

describe("resume after the session's process was killed (SIGKILL of a real node process)", () => {
  it("killed during the model stream: the dropped request is handed back, nothing is re-run, the session completes", async () => {
    const env = await start([
      { text: "First a command.", tool_calls: [exec("echo ran >> runs.txt", "call_first")] },
      { text: "A long answer that will never finish streaming.", chunk_size: 4, stall: { after_chunks: 2 } },
      { text: "Resumed and done." },
    ]);
    const run = spawnSession(env, "Do the thing.");
    const { session_id: sessionId } = (await run.waitFor((line) => "session_id" in line)) as {
      session_id: string;
    };
    // The second request is streaming (and stalled) once its text deltas arrive.
    await run.waitFor((line) => payloadOf(line).type === "partial_text" && payloadOf(line).text === "A lo");
    await run.kill();
    expect(env.llm.requests).toHaveLength(2);

    const resumed = await env.agent.resumeSession(sessionId);
    const more = await collect(resumed.run("Continue, please.", { approve: allowAll }));
    await resumed.dispose();
    expect(more.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
    expect(env.llm.requests).toHaveLength(3);

    const sent = requestMessages(env, 2);
    expectEveryCallAnswered(sent);
    expect(sent.filter((m) => m.role === "assistant").map(textOf)).toEqual(["First a command."]);
    const last = textOf(sent.at(-1));
    expect(last).toContain("[turn_aborted]");
    expect(last).toMatch(/Continue, please\.$/);
    expect(readFileSync(join(env.workspaceDir, "runs.txt"), "utf8")).toBe("ran\n");
    const records = expectTraceResumable(env, sessionId);
    expect(records.filter((m: OmniMessage) => kind(m) === "session_meta")).toHaveLength(1);
  });

  it("killed during a retried attempt after its tool ran: the resumed model is told what that attempt ran, and nothing is re-run", async () => {
    const first = exec("echo ran >> runs.txt; echo ran-once", "call_ran");
    // Attempt 2 stalls while the second call's arguments stream: the first call is complete and
    // runs meanwhile (its output is traced), but the request never ends.
    const firstArgsChunks = Math.ceil(JSON.stringify(first.arguments).length / 4);
    const env = await start([
      { error: { status: 500, message: "overloaded" } },
      {
        tool_calls: [first, exec("echo never >> never.txt", "call_never")],
        chunk_size: 4,
        stall: { after_chunks: firstArgsChunks + 2 },
      },
      { text: "Picked up." },
    ]);
    const run = spawnSession(env, "Build it.");
    const { session_id: sessionId } = (await run.waitFor((line) => "session_id" in line)) as {
      session_id: string;
    };
    await run.waitFor(
      (line) => payloadOf(line).type === "tool_call_output" && payloadOf(line).tool_call_id === "call_ran",
    );
    await run.kill();
    expect(env.llm.requests).toHaveLength(2);

    const resumed = await env.agent.resumeSession(sessionId);
    const more = await collect(resumed.run("Continue.", { approve: allowAll }));
    await resumed.dispose();
    expect(more.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });

    const sent = requestMessages(env, 2);
    expectEveryCallAnswered(sent);
    expect(sent.some((m) => m.role === "assistant")).toBe(false);
    const last = textOf(sent.at(-1));
    // Attempt 1's note, then the note for attempt 2, which says its command ran and what it printed.
    expect(last.match(/\[turn_retried\]/g)).toHaveLength(1);
    expect(last.indexOf("[turn_aborted]")).toBeGreaterThan(last.indexOf("[/turn_retried]"));
    expect(last).toContain("tool call exec_command (call_ran)");
    expect(last).toMatch(/tool output \(call_ran, completed\): [^\n]*ran-once/);
    expect(last).toMatch(/Continue\.$/);
    expect(readFileSync(join(env.workspaceDir, "runs.txt"), "utf8")).toBe("ran\n");
    expect(existsSync(join(env.workspaceDir, "never.txt"))).toBe(false);
  });

  it("killed while a tool runs: the call gets an interrupted output, is never re-run, and the session completes", async () => {
    const env = await start([
      {
        text: "Sleeping.",
        tool_calls: [
          exec("echo ran >> runs.txt; echo $$ > sleeper.pid; echo started; exec sleep 30", "call_sleep"),
        ],
      },
      { text: "Picked up after the crash." },
    ]);
    const pidFile = join(env.workspaceDir, "sleeper.pid");
    cleanups.push(() => {
      // The killed process cannot end its command's process group; the test does, by its id.
      if (!existsSync(pidFile)) return;
      try {
        process.kill(-Number(readFileSync(pidFile, "utf8").trim()), "SIGKILL");
      } catch {
        // Already gone.
      }
    });
    const run = spawnSession(env, "Sleep a while.");
    const { session_id: sessionId } = (await run.waitFor((line) => "session_id" in line)) as {
      session_id: string;
    };
    // The command's first output has streamed (the redactor holds back a tail, so not all of
    // it): the command runs, and it wrote its pid before its output.
    await run.waitFor(
      (line) => payloadOf(line).type === "partial_tool_call_output" && payloadOf(line).event_type === "delta",
    );
    expect(existsSync(pidFile)).toBe(true);
    await run.kill();

    const resumed = await env.agent.resumeSession(sessionId);
    const more = await collect(resumed.run("Continue.", { approve: allowAll }));
    await resumed.dispose();
    expect(more.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
    // The tool never ran again: no new tool call, one line in runs.txt.
    expect(more.filter((m) => kind(m) === "tool_call")).toHaveLength(0);
    expect(readFileSync(join(env.workspaceDir, "runs.txt"), "utf8")).toBe("ran\n");

    const sent = requestMessages(env, 1);
    expectEveryCallAnswered(sent);
    expect(sent.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(textOf(sent[3])).toContain("Tool call interrupted");
    expect(textOf(sent[3])).toContain("It was not re-run");
    // The command may have changed things: the model is told once, with what Penguin could check
    // (the process registry's account of the command), before the user's next input.
    expect(textOf(sent[4])).toMatch(
      /^\[uncertain_steps\] .*\n- exec_command \(call_sleep\) .*: cmd_1 \(exec_command\) "echo ran/,
    );
    expect(textOf(sent[4])).toMatch(/\n\nContinue\.$/);
    expectTraceResumable(env, sessionId);
  });
});
