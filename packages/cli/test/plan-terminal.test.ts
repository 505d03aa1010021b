import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeLlm, startFakeLlm } from "@penguin/fake-llm";
import { afterEach, describe, expect, test } from "vitest";
import { tempDir } from "./helpers.js";
import { TerminalRun } from "./pty.js";

// Plan mode in a chat at a terminal: after a plan-mode task proposes its plan, the chat asks
// whether to approve it; `n` keeps planning, `a` runs the plan in allow-all.

const API_KEY = "sk-test-penguin-plan-terminal-0123456789";

const writeCall = (file: string, id: string) => ({
  tool_calls: [{ id, name: "write_file", arguments: { file_path: file, content: "hello\n" } }],
});

describe("plan mode in a chat at a terminal", () => {
  let llm: FakeLlm | undefined;
  afterEach(async () => {
    await llm?.close();
  });

  test("asks to approve the plan: n keeps planning, a carries it out in allow-all", async () => {
    const ws = tempDir("ws");
    const target = join(ws, "notes.txt");
    llm = await startFakeLlm({
      apiKey: API_KEY,
      script: [
        writeCall(target, "w1"),
        { text: "Plan A: write notes.txt." },
        { text: "Plan B: write notes.txt with hello." },
        writeCall(target, "w2"),
        { text: "Done." },
      ],
    });
    const env = { PENGUIN_HOME: tempDir("data"), OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${llm.url}/v1` };
    const chat = new TerminalRun(["chat", "--plan", "--model", "openai/fake-model", "-w", ws], env);
    await chat.waitFor("approve: plan");
    chat.type("add notes\r");
    await chat.waitFor("Approve the plan? [a] allow-all / [s] ask each call / [n] keep planning");
    expect(existsSync(target)).toBe(false);
    chat.type("n\r");
    await chat.waitFor("still in plan mode");
    chat.type("say hello in it\r");
    await chat.waitFor("Plan B: write notes.txt with hello.");
    await chat.waitFor(/keep planning[\s\S]*keep planning/);
    chat.type("a\r");
    await chat.waitFor("carrying out the plan");
    await chat.waitFor("Done.");
    expect(readFileSync(target, "utf8")).toBe("hello\n");
    chat.type("/approve\r");
    await chat.waitFor("approval mode: allow-all");
    chat.type("/exit\r");
    expect(await chat.exitCode()).toBe(0);
  });
});
