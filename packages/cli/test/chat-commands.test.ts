import { describe, expect, test } from "vitest";
import { tempDir } from "./helpers.js";
import { TerminalRun } from "./pty.js";

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
    const chat = new TerminalRun(["chat", "--resume", "20990101-000000-abcdef", "-w", tempDir("ws")], {
      PENGUIN_HOME: tempDir("data"),
    });
    expect({ code: await chat.exitCode(), screen: chat.screen }).toMatchObject({ code: 2 });
    expect(chat.screen).toContain("20990101-000000-abcdef");
  });
});
