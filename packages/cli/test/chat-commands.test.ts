import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type FakeLlm, startFakeLlm } from "@penguin/fake-llm";
import { afterEach, describe, expect, test } from "vitest";
import { penguin, REPO_ROOT, readJsonLines, tempDir, traceFiles } from "./helpers.js";
import { TerminalRun } from "./pty.js";

const API_KEY = "sk-test-penguin-chat-commands-0123456789";

/** The session_meta of every session under a data root, by session id. */
function metasOf(dataRoot: string): Map<string, Record<string, unknown>> {
  const metas = new Map<string, Record<string, unknown>>();
  for (const file of traceFiles(dataRoot)) {
    const meta = readJsonLines(file).find((r) => r.type === "session_meta");
    if (meta) metas.set(String(meta.payload.session_id), meta.payload);
  }
  return metas;
}

/** The ids the chat announced, in order ("new session X" / "resumed session X"). */
const announced = (stderr: string) =>
  [...stderr.matchAll(/(new|resumed) session (\S+) in/g)].map((m) => ({ verb: m[1], id: m[2] }));

describe("penguin chat at a terminal refuses what it cannot start", () => {
  test("an invalid --model or $PENGUIN_MODEL is a usage error (exit 2), not a hung terminal", async () => {
    const env = { PENGUIN_HOME: tempDir("data") };
    const flag = new TerminalRun(["chat", "--model", "gpt-5", "-w", tempDir("ws")], env);
    expect({ code: await flag.exitCode(), screen: flag.screen }).toMatchObject({ code: 2 });
    expect(flag.screen).toContain('invalid model "gpt-5": use provider/model-id');
    expect(flag.screen).not.toContain("/help for commands");

    const fromEnv = new TerminalRun(["chat", "-w", tempDir("ws")], { ...env, PENGUIN_MODEL: "gpt-5" });
    expect({ code: await fromEnv.exitCode(), screen: fromEnv.screen }).toMatchObject({ code: 2 });
    expect(fromEnv.screen).toContain('invalid model "gpt-5"');
  });

  test("a session that cannot be opened after the terminal is set up still ends the chat (exit 2)", async () => {
    const chat = new TerminalRun(["chat", "--resume", "20990101-000000-abcdef"], {
      PENGUIN_HOME: tempDir("data"),
    });
    expect({ code: await chat.exitCode(), screen: chat.screen }).toMatchObject({ code: 2 });
    expect(chat.screen).toContain("20990101-000000-abcdef");
  });
});

describe("/clear and /model after a resume keep the resumed session's model and workspace", () => {
  let llm: FakeLlm | undefined;
  afterEach(async () => {
    await llm?.close();
  });

  /** A finished session made with `model-one` in its own workspace; the chat's defaults differ. */
  async function setUp() {
    llm = await startFakeLlm({ apiKey: API_KEY, script: [{ text: "One." }, { text: "Two." }] });
    const dataRoot = tempDir("data");
    const firstWorkspace = tempDir("ws-one");
    const chatWorkspace = tempDir("ws-two");
    const env = {
      PENGUIN_HOME: dataRoot,
      OPENAI_API_KEY: API_KEY,
      OPENAI_BASE_URL: `${llm.url}/v1`,
      // What a new chat would use if nothing carried over.
      PENGUIN_MODEL: "openai/model-two",
    };
    const first = await penguin(["run", "--model", "openai/model-one", "-w", firstWorkspace, "-m", "hi"], {
      env,
    });
    expect(first.exitCode).toBe(0);
    const [id] = [...metasOf(dataRoot).keys()];
    return { llm, dataRoot, firstWorkspace, chatWorkspace, env, id };
  }

  test("chat --resume: /model shows the resumed model; /clear starts a session with it, in its workspace", async () => {
    const { llm, dataRoot, firstWorkspace, chatWorkspace, env, id } = await setUp();
    const r = await penguin(["chat", "--resume", id], {
      env,
      cwd: chatWorkspace,
      input: "/model\n/clear\n/model\nhello again\n/exit\n",
    });
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).not.toContain("model-two");
    expect(r.stderr.match(/^model: openai\/model-one$/gm)).toHaveLength(2);
    const sessions = announced(r.stderr);
    expect(sessions.map((s) => s.verb)).toEqual(["resumed", "new"]);
    expect(sessions[0].id).toBe(id);
    expect(metasOf(dataRoot).get(sessions[1].id)).toMatchObject({
      provider: "openai",
      model_id: "model-one",
      workspace: firstWorkspace,
    });
    // The prompt after /clear went to the resumed session's model.
    expect(llm.requests.at(-1)?.body).toMatchObject({ model: "model-one" });
  });

  test("/resume <id> then /clear: the new session has the resumed session's model and workspace", async () => {
    const { dataRoot, firstWorkspace, chatWorkspace, env, id } = await setUp();
    const r = await penguin(["chat", "-w", chatWorkspace], {
      env,
      input: `/resume ${id}\n/clear\n/model\n/exit\n`,
    });
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.exitCode).toBe(0);
    const sessions = announced(r.stderr);
    expect(sessions.map((s) => s.verb)).toEqual(["new", "resumed", "new"]);
    const metas = metasOf(dataRoot);
    expect(metas.get(sessions[0].id)).toMatchObject({ model_id: "model-two", workspace: chatWorkspace });
    expect(metas.get(sessions[2].id)).toMatchObject({ model_id: "model-one", workspace: firstWorkspace });
    expect(r.stderr).toMatch(/^model: openai\/model-one$/m);
  });
});

describe("/clear at a terminal", () => {
  test("a /clear that cannot start a session is one line, and the chat goes on", async () => {
    const workspace = tempDir("ws");
    const chat = new TerminalRun(
      ["chat", "--model", `replay:${REPO_ROOT}/examples/quickstart.cassette.yaml`, "-w", workspace],
      { PENGUIN_HOME: tempDir("data") },
    );
    await chat.waitFor("/help for commands");
    // The session's workspace is gone: the next session cannot start there.
    rmSync(workspace, { recursive: true });
    chat.type("/clear\r");
    await chat.waitFor("is not an existing folder");
    chat.type("/trace\r");
    await chat.waitFor("trace: ");
    chat.type("/exit\r");
    expect({ code: await chat.exitCode(), screen: chat.screen }).toMatchObject({ code: 0 });
    expect(chat.screen).not.toMatch(/internal error|at .*\.js:\d+/);
  });
});

describe("penguin chat 2>log on a terminal", () => {
  let llm: FakeLlm | undefined;
  afterEach(async () => {
    await llm?.close();
  });

  test("stays a terminal chat on stdout: an always-ask question is asked there and answered", async () => {
    llm = await startFakeLlm({
      apiKey: API_KEY,
      script: [
        {
          tool_calls: [
            {
              name: "exec_command",
              arguments: { description: "Say hello", cmd: "echo hello-from-the-call" },
            },
          ],
        },
        { text: "The call ran." },
      ],
    });
    const log = join(tempDir("log"), "chat.log");
    const env = { PENGUIN_HOME: tempDir("data"), OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${llm.url}/v1` };
    const chat = new TerminalRun(
      ["chat", "--approve", "always-ask", "--model", "openai/fake-model", "-w", tempDir("ws")],
      env,
      { stderrFile: log },
    );
    await chat.waitFor("/help for commands");
    chat.type("say hello\r");
    await chat.waitFor("allow? [y/N/p/a]");
    expect(chat.screen).toContain("$ echo hello-from-the-call");
    chat.type("y\r");
    await chat.waitFor("The call ran.");
    chat.type("/exit\r");
    expect({ code: await chat.exitCode(), screen: chat.screen }).toMatchObject({ code: 0 });
    expect(readFileSync(log, "utf8")).not.toMatch(/not a terminal|denied/);
    const body = JSON.stringify(llm.requests.at(-1)?.body);
    expect(body).toContain("hello-from-the-call");
  });
});

describe("piped chat exit codes", () => {
  let llm: FakeLlm | undefined;
  afterEach(async () => {
    await llm?.close();
  });

  /** A chat whose one task hits --max-turns (a failed task), then `after`. */
  async function chatWithFailedTask(after: string) {
    const call = { name: "exec_command", arguments: { description: "Look", cmd: "true" } };
    llm = await startFakeLlm({ apiKey: API_KEY, script: [{ tool_calls: [call] }, { text: "unused" }] });
    const env = { PENGUIN_HOME: tempDir("data"), OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${llm.url}/v1` };
    return penguin(["chat", "--max-turns", "1", "--model", "openai/fake-model", "-w", tempDir("ws")], {
      env,
      input: `look around\n${after}`,
    });
  }

  test("/exit gives 0 even when the last task failed, as at a terminal", async () => {
    const r = await chatWithFailedTask("/exit\n");
    expect(r.stderr).toMatch(/── (?!done)/);
    expect(r.exitCode).toBe(0);
  });

  test("the end of the input gives the last task's outcome: 1 when it failed", async () => {
    const r = await chatWithFailedTask("");
    expect(r.stderr).toMatch(/── (?!done)/);
    expect(r.exitCode).toBe(1);
  });
});
