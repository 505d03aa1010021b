import { type FakeLlm, startFakeLlm } from "@penguin/fake-llm";
import { afterEach, describe, expect, test } from "vitest";
import { penguin, tempDir } from "./helpers.js";
import { TerminalRun } from "./pty.js";

const API_KEY = "sk-test-penguin-chat-0123456789";

describe("penguin chat at a terminal", () => {
  let llm: FakeLlm | undefined;
  afterEach(async () => {
    await llm?.close();
  });

  test("a two-prompt conversation, steering while a command runs, Ctrl-O, then /exit", async () => {
    llm = await startFakeLlm({
      apiKey: API_KEY,
      script: [
        { text: "First answer." },
        {
          tool_calls: [
            {
              name: "exec_command",
              arguments: { description: "Count slowly", cmd: "seq 1 40 && sleep 2" },
            },
          ],
        },
        { text: "Second answer, steered." },
      ],
    });
    const dataRoot = tempDir("data");
    const env = { PENGUIN_HOME: dataRoot, OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${llm.url}/v1` };
    const chat = new TerminalRun(["chat", "--model", "openai/fake-model", "-w", tempDir("ws")], env);
    await chat.waitFor("/help for commands");
    chat.type("hello\r");
    await chat.waitFor("First answer.");
    await chat.waitFor("── done");
    chat.type("count for me\r");
    // The description shows while the command runs; a line typed now steers the task.
    await chat.waitFor("Count slowly");
    chat.type("use base ten\r");
    await chat.waitFor("steering: use base ten");
    await chat.waitFor("Second answer, steered.");
    // The folded output (40 lines) is shown whole with Ctrl-O.
    expect(chat.screen).toContain("Ctrl-O shows the whole output");
    expect(chat.screen).not.toMatch(/│ 20\n/);
    chat.type("\u000f");
    await chat.waitFor("(whole output)");
    await chat.waitFor(/^20$/m);
    chat.type("/exit\r");
    expect(await chat.exitCode()).toBe(0);

    // Both prompts went to one session, and the steering text reached the model with the next request.
    expect(llm.requests).toHaveLength(3);
    const third = JSON.stringify(llm.requests[2].body);
    expect(third).toContain("hello");
    expect(third).toContain("count for me");
    expect(third).toContain("use base ten");
    const id = /penguin chat --resume (\S+)/.exec(chat.screen)?.[1];
    const sessions = await penguin(["sessions", "list", "--json"], { env });
    expect(JSON.parse(sessions.stdout).map((s: { id: string }) => s.id)).toEqual([id]);
  }, 90_000);

  test("--resume without an id continues the newest session", async () => {
    llm = await startFakeLlm({ apiKey: API_KEY, script: [{ text: "One." }, { text: "Two." }] });
    const env = { PENGUIN_HOME: tempDir("data"), OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${llm.url}/v1` };
    const workspace = tempDir("ws");
    const first = await penguin(
      ["run", "--model", "openai/fake-model", "-w", workspace, "-m", "remember 42"],
      {
        env,
      },
    );
    expect(first.exitCode).toBe(0);
    const chat = new TerminalRun(["chat", "--resume"], env);
    await chat.waitFor("resumed session");
    chat.type("what did I say?\r");
    await chat.waitFor("Two.");
    chat.type("/exit\r");
    expect(await chat.exitCode()).toBe(0);
    expect(JSON.stringify(llm.requests[1].body)).toContain("remember 42");
  }, 90_000);
});
