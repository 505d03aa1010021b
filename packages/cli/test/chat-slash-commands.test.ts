import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentEventHandlersDir, DEFAULT_AGENT_ID } from "@penguin/state";
import { describe, expect, test } from "vitest";
import { fakeOpenAiPerTest, penguin, readJsonLines, tempDir, traceFiles } from "./helpers.js";

const API_KEY = "sk-test-penguin-chat-slash-0123456789";

/** The ids the chat announced, in order ("new session X" / "resumed session X"). */
const announced = (stderr: string) =>
  [...stderr.matchAll(/(new|resumed) session (\S+) in/g)].map((m) => ({ verb: m[1], id: m[2] }));

/** The session_meta of the session a trace file belongs to. */
const metaOf = (file: string) => readJsonLines(file).find((r) => r.type === "session_meta")?.payload;

describe("chat slash commands (stdin not a terminal: one line each)", () => {
  const start = fakeOpenAiPerTest(API_KEY);

  /** A finished session made by `penguin run`; returns its id. */
  async function earlierSession(env: Record<string, string>, prompt: string): Promise<string> {
    const r = await penguin(["run", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", prompt], {
      env,
    });
    expect(r.exitCode).toBe(0);
    const [file] = traceFiles(env.PENGUIN_HOME);
    return String(metaOf(file)?.session_id);
  }

  test("/sessions lists the sessions of the data root and marks the current one", async () => {
    const { env } = await start([{ text: "Earlier." }]);
    const earlier = await earlierSession(env, "hi");
    const r = await penguin(["chat", "--model", "openai/fake-model", "-w", tempDir("ws")], {
      env,
      input: "/sessions\n/exit\n",
    });
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.exitCode).toBe(0);
    const [current] = announced(r.stderr);
    expect(current.verb).toBe("new");
    const listed = r.stderr.split("\n").filter((l) => /^ {2}\S+ {2}\d{4}-\d\d-\d\d \d\d:\d\d/.test(l));
    expect(listed.some((l) => l.startsWith(`  ${current.id} `) && l.endsWith("fake-model (this one)"))).toBe(
      true,
    );
    expect(listed.some((l) => l.startsWith(`  ${earlier} `) && !l.includes("(this one)"))).toBe(true);
  });

  test("/compact summarizes the context into the trace's next file; the next prompt starts from the summary", async () => {
    const { env, llm } = await start([
      { text: "First answer." },
      { text: "[summary]The user said hello; I answered.[/summary]" },
      { text: "Second answer." },
    ]);
    const r = await penguin(["chat", "--model", "openai/fake-model", "-w", tempDir("ws")], {
      env,
      input: "hello\n/compact\nand now?\n/trace\n/exit\n",
    });
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain("compacting the context (manual, summarize)");
    expect(r.stderr).toContain("context compacted");
    expect(r.stdout).toContain("The user said hello; I answered.");
    const [traceLine] = [...r.stderr.matchAll(/^trace: (\S+)$/gm)].map((m) => m[1]);
    expect(traceLine).toMatch(/_002\.jsonl$/);
    const last = llm.requests.at(-1)?.body as { messages: { role: string; content: string }[] };
    expect(last.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(last.messages[1].content).toMatch(/^\[context_summary\][\s\S]*I answered\.[\s\S]*and now\?$/);
  });

  test("/trace prints the current session's trace file", async () => {
    const { env } = await start([{ text: "First answer." }]);
    const r = await penguin(["chat", "--model", "openai/fake-model", "-w", tempDir("ws")], {
      env,
      // /clear between them: the closing trace line then names another session's file.
      input: "hello\n/trace\n/clear\n/exit\n",
    });
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.exitCode).toBe(0);
    const [first, second] = announced(r.stderr);
    const traceLines = [...r.stderr.matchAll(/^trace: (\S+)$/gm)].map((m) => m[1]);
    expect(traceLines).toHaveLength(2);
    expect(existsSync(traceLines[0])).toBe(true);
    expect(metaOf(traceLines[0])?.session_id).toBe(first.id);
    expect(traceLines[1]).not.toBe(traceLines[0]);
    expect(traceLines[1]).toContain(second.id);
  });

  test("/resume <id> switches to that session: the next request carries its history", async () => {
    const { llm, env } = await start([{ text: "I will remember pelican." }, { text: "It was pelican." }]);
    const earlier = await earlierSession(env, "remember the word pelican");
    const r = await penguin(["chat", "--model", "openai/fake-model", "-w", tempDir("ws")], {
      env,
      input: `/resume ${earlier}\nwhich word was it?\n/exit\n`,
    });
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.exitCode).toBe(0);
    expect(announced(r.stderr).map((s) => s.verb)).toEqual(["new", "resumed"]);
    expect(announced(r.stderr)[1].id).toBe(earlier);
    expect(r.stdout).toContain("It was pelican.");
    const last = JSON.stringify(llm.requests.at(-1)?.body);
    expect(last).toContain("remember the word pelican");
    expect(last).toContain("I will remember pelican.");
    expect(last).toContain("which word was it?");
    // The prompt went into the resumed session's trace, not a new one.
    const prompts = traceFiles(env.PENGUIN_HOME)
      .filter((f) => metaOf(f)?.session_id === earlier)
      .flatMap((f) => readJsonLines(f))
      .filter((x) => x.payload.type === "text" && x.payload.role === "user")
      .map((x) => x.payload.text);
    expect(prompts).toEqual(["remember the word pelican", "which word was it?"]);
  });

  test("/resume with an id that does not exist is one line, and the chat goes on in its session", async () => {
    const { llm, env } = await start([{ text: "Still here." }]);
    const r = await penguin(["chat", "--model", "openai/fake-model", "-w", tempDir("ws")], {
      env,
      input: "/resume 20990101-000000-abcdef\nare you there?\n/exit\n",
    });
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/no session 20990101-000000-abcdef/);
    expect(announced(r.stderr)).toHaveLength(1);
    expect(r.stdout).toContain("Still here.");
    expect(llm.requests).toHaveLength(1);
  });

  test("/model <ref> starts a new session with that model in the same workspace; /model shows it", async () => {
    const { llm, env } = await start([{ text: "From one." }, { text: "From two." }]);
    const ws = tempDir("ws");
    const r = await penguin(["chat", "--model", "openai/model-one", "-w", ws], {
      env,
      input: "first prompt\n/model openai/model-two\n/model\nsecond prompt\n/exit\n",
    });
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.exitCode).toBe(0);
    const sessions = announced(r.stderr);
    expect(sessions.map((s) => s.verb)).toEqual(["new", "new"]);
    expect(r.stderr).toMatch(/^model: openai\/model-two$/m);
    const metas = new Map(traceFiles(env.PENGUIN_HOME).map((f) => [metaOf(f)?.session_id, metaOf(f)]));
    expect(metas.get(sessions[1].id)).toMatchObject({
      provider: "openai",
      model_id: "model-two",
      workspace: ws,
    });
    expect(llm.requests.map((q) => (q.body as { model: string }).model)).toEqual(["model-one", "model-two"]);
    // A new session: the earlier prompt is not in its context.
    expect(JSON.stringify(llm.requests[1].body)).not.toContain("first prompt");
  });

  test("/model with an invalid reference is one line and keeps the current model", async () => {
    const { llm, env } = await start([{ text: "Same model." }]);
    const r = await penguin(["chat", "--model", "openai/model-one", "-w", tempDir("ws")], {
      env,
      input: "/model gpt-5\n/model\nhello\n/exit\n",
    });
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('invalid model "gpt-5"');
    expect(r.stderr).toMatch(/^model: openai\/model-one$/m);
    expect(announced(r.stderr)).toHaveLength(1);
    expect(llm.requests.map((q) => (q.body as { model: string }).model)).toEqual(["model-one"]);
  });

  test("/notify hands a notice to the event handlers; the next prompt's request carries it as quoted data", async () => {
    const { env, llm } = await start([{ text: "Deploy 7 is live." }]);
    const handlers = agentEventHandlersDir(env.PENGUIN_HOME, DEFAULT_AGENT_ID);
    mkdirSync(handlers, { recursive: true });
    writeFileSync(join(handlers, "deploys.md"), "---\ntype: deploy.*\n---\nTell the user.\n");
    const r = await penguin(["chat", "--model", "openai/fake-model", "-w", tempDir("ws")], {
      env,
      input:
        "/notify deploy.done version 7 is live\n/notify job.exited fake\n/notify deploy.done\nwhat happened?\n/exit\n",
    });
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain("notice ntc_1 taken by the event handler deploys");
    expect(r.stderr).toContain("notice refused: notice type job.exited is refused");
    expect(r.stderr).toContain("/notify takes a type and a summary");
    expect(llm.requests).toHaveLength(1);
    const body = llm.requests[0]?.body as { messages: { role: string; content: string }[] };
    const user = body.messages
      .filter((m) => m.role === "user")
      .map((m) => m.content)
      .join("\n");
    expect(user).toContain("what happened?");
    expect(user).toContain("type deploy.done");
    expect(user).toMatch(/```notice-data\nsummary: version 7 is live\n```/);
  });
});
