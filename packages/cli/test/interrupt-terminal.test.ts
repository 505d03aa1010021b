import { type FakeLlm, startFakeLlm } from "@penguin/fake-llm";
import { afterEach, describe, expect, test } from "vitest";
import { penguin, tempDir } from "./helpers.js";
import { processesRunning, TerminalRun } from "./pty.js";

const API_KEY = "sk-test-penguin-ctrl-c-0123456789";
/** A duration no other process on the machine uses, so the leftover check finds only ours. */
const SLEEP_SECONDS = "987.25";

const longCommand = {
  tool_calls: [
    { name: "exec_command", arguments: { description: "Wait a long time", cmd: `sleep ${SLEEP_SECONDS}` } },
  ],
};

describe("Ctrl-C at the terminal", () => {
  let llm: FakeLlm | undefined;
  afterEach(async () => {
    await llm?.close();
  });

  test("run: the first Ctrl-C interrupts the task, leaves no process behind, and --resume continues", async () => {
    llm = await startFakeLlm({
      apiKey: API_KEY,
      script: [longCommand, { text: "Picked up where we left off." }],
    });
    const dataRoot = tempDir("data");
    const workspace = tempDir("ws");
    const env = { PENGUIN_HOME: dataRoot, OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${llm.url}/v1` };
    const run = new TerminalRun(["run", "--model", "openai/fake-model", "-w", workspace, "-m", "wait"], env);
    await run.waitFor("Wait a long time");
    // The command has started once its process exists.
    for (let i = 0; i < 100 && (await processesRunning("sleep", SLEEP_SECONDS)).length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await processesRunning("sleep", SLEEP_SECONDS)).not.toHaveLength(0);
    run.type("\u0003");
    // The screen travels with the exit code so a failure shows what the user saw.
    expect({ code: await run.exitCode(), screen: run.screen }).toMatchObject({ code: 1 });
    expect(run.screen).toContain("interrupted");
    expect(await processesRunning("sleep", SLEEP_SECONDS)).toEqual([]);
    const id = /penguin run --resume (\S+)/.exec(run.screen)?.[1];
    expect(id).toBeDefined();

    const resumed = await penguin(["run", "--resume", String(id), "-m", "go on"], { env });
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toContain("Picked up where we left off.");
    // The continued conversation carries the first prompt and the interrupted call's output.
    const body = JSON.stringify(llm.requests.at(-1)?.body);
    expect(body).toContain("wait");
    expect(body).toContain("go on");
    expect(body).toContain(`sleep ${SLEEP_SECONDS}`);
  });

  test("chat: Ctrl-C interrupts the task and keeps the chat; two more at the empty prompt exit", async () => {
    llm = await startFakeLlm({ apiKey: API_KEY, script: [longCommand, { text: "Still here." }] });
    const env = { PENGUIN_HOME: tempDir("data"), OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${llm.url}/v1` };
    const chat = new TerminalRun(["chat", "--model", "openai/fake-model", "-w", tempDir("ws")], env);
    await chat.waitFor("/help for commands");
    chat.type("wait please\r");
    await chat.waitFor("Wait a long time");
    for (let i = 0; i < 100 && (await processesRunning("sleep", SLEEP_SECONDS)).length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    chat.type("\u0003");
    await chat.waitFor("── aborted");
    expect(await processesRunning("sleep", SLEEP_SECONDS)).toEqual([]);
    // The session goes on: the next prompt is answered in the same chat.
    chat.type("are you there?\r");
    await chat.waitFor("Still here.");
    chat.type("\u0003");
    await chat.waitFor("press Ctrl-C again");
    chat.type("\u0003");
    // Quitting at the prompt is a normal end of the chat.
    expect(await chat.exitCode()).toBe(0);
    expect(chat.screen).toContain("resume with: penguin chat --resume");
  });
});
