import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeLlm, startFakeLlm } from "@penguin/fake-llm";
import { afterEach, describe, expect, test } from "vitest";
import { kindOf, penguin, readJsonLines, tempDir, traceFiles } from "./helpers.js";
import { TerminalRun } from "./pty.js";

// The agent's questions to the user (`ask`) at the CLI: a prompt on the terminal that reads one
// answer line, and with no terminal a failure the model reads at once.

const API_KEY = "sk-test-penguin-ask-0123456789";

const askTurn = (question: string) => ({
  tool_calls: [{ id: "call_ask", name: "ask", arguments: { question } }],
});

/** A data root whose default agent has the extended preset (which has `ask`). */
function extendedDataRoot(): string {
  const dataRoot = tempDir("data");
  mkdirSync(join(dataRoot, "agents", "default"), { recursive: true });
  writeFileSync(join(dataRoot, "agents", "default", "system_config.yaml"), "tools:\n  preset: extended\n");
  return dataRoot;
}

/** The payloads of `type` in the session's trace. */
function tracePayloads(dataRoot: string, type: string) {
  return readJsonLines(traceFiles(dataRoot)[0]!)
    .filter((record) => kindOf(record) === type)
    .map((record) => record.payload);
}

describe("ask at the CLI", () => {
  let llm: FakeLlm | undefined;
  afterEach(async () => {
    await llm?.close();
  });

  test("ask answered from the terminal (a real PTY): the question is shown and the typed line answers it", async () => {
    llm = await startFakeLlm({
      apiKey: API_KEY,
      script: [askTurn("Which colour should the button be?"), { text: "Making it teal." }],
    });
    const dataRoot = extendedDataRoot();
    const run = new TerminalRun(
      [
        "run",
        "--approve",
        "allow-all",
        "--model",
        "openai/fake-model",
        "-w",
        tempDir("ws"),
        "-m",
        "style it",
      ],
      { PENGUIN_HOME: dataRoot, OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${llm.url}/v1` },
    );
    await run.waitFor("answer:");
    expect(run.screen).toContain("the agent asks (q_1):");
    expect(run.screen).toContain("Which colour should the button be?");
    // An empty line is not taken as the answer.
    run.type("\r");
    await run.waitFor("type an answer and press Enter");
    await run.waitFor("answer:", 2);
    run.type("teal\r");
    expect(await run.exitCode()).toBe(0);
    expect(run.screen).toContain("Making it teal.");

    expect(tracePayloads(dataRoot, "question_answered")).toEqual([
      { type: "question_answered", question_id: "q_1", from: "user", text: "teal", tool_call_id: "call_ask" },
    ]);
    expect(llm.requests.at(-1)?.rawBody).toContain("Answer to q_1 from user:\\nteal");
  });

  test("ask answered in a chat at the terminal (a real PTY)", async () => {
    llm = await startFakeLlm({
      apiKey: API_KEY,
      script: [askTurn("Tabs or spaces?"), { text: "Spaces it is." }],
    });
    const dataRoot = extendedDataRoot();
    const chat = new TerminalRun(
      ["chat", "--approve", "allow-all", "--model", "openai/fake-model", "-w", tempDir("ws")],
      { PENGUIN_HOME: dataRoot, OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${llm.url}/v1` },
    );
    await chat.waitFor("/help for commands");
    chat.type("format the code\r");
    await chat.waitFor("the agent asks (q_1):");
    await chat.waitFor("answer:");
    chat.type("spaces\r");
    await chat.waitFor("Spaces it is.");
    chat.type("/exit\r");
    expect(await chat.exitCode()).toBe(0);
    expect(tracePayloads(dataRoot, "question_answered")).toMatchObject([
      { question_id: "q_1", text: "spaces" },
    ]);
  });

  test("ask with nobody to answer: without a terminal the call fails at once with a message the model reads", async () => {
    llm = await startFakeLlm({
      apiKey: API_KEY,
      script: [askTurn("Which colour?"), { text: "I will pick one myself." }],
    });
    const dataRoot = extendedDataRoot();
    const started = Date.now();
    const result = await penguin(
      [
        "run",
        "--approve",
        "allow-all",
        "--model",
        "openai/fake-model",
        "-w",
        tempDir("ws"),
        "-m",
        "style it",
      ],
      { env: { PENGUIN_HOME: dataRoot, OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${llm.url}/v1` } },
    );
    expect(result.exitCode).toBe(0);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(result.stderr).toContain(
      "penguin: the agent asked q_1 and nobody can answer: stdin is not a terminal",
    );
    expect(result.stdout).toContain("I will pick one myself.");
    const [output] = tracePayloads(dataRoot, "tool_call_output");
    expect(output).toMatchObject({ tool_call_id: "call_ask", stop_reason: "failed" });
    expect(String(output!.output)).toMatch(
      /^q_1 was not answered: no one can answer questions in this session: stdin is not a terminal/,
    );
  });

  test("ask with nobody to answer in a chat fed by a pipe", async () => {
    llm = await startFakeLlm({
      apiKey: API_KEY,
      script: [askTurn("Which colour?"), { text: "Picked one myself." }],
    });
    const dataRoot = extendedDataRoot();
    const result = await penguin(
      ["chat", "--approve", "allow-all", "--model", "openai/fake-model", "-w", tempDir("ws")],
      {
        env: { PENGUIN_HOME: dataRoot, OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${llm.url}/v1` },
        input: "style it\n",
      },
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdout + result.stderr).toContain("nobody can answer: stdin is not a terminal");
    const [output] = tracePayloads(dataRoot, "tool_call_output");
    expect(output).toMatchObject({ tool_call_id: "call_ask", stop_reason: "failed" });
  });
});
