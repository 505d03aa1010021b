import { type FakeLlm, startFakeLlm } from "@penguin/fake-llm";
import { afterEach, describe, expect, test } from "vitest";
import { penguin, tempDir } from "./helpers.js";
import { TerminalRun } from "./pty.js";

const API_KEY = "sk-test-penguin-markdown-0123456789";

const ANSWER = [
  "## Result",
  "",
  "The tests **pass** now.",
  "",
  "```sh",
  "npm test -- **/*.ts",
  "  indented line",
  "```",
  "",
  "| file | lines |",
  "| --- | ---: |",
  "| a.ts | 7 |",
  "| src/long-name.ts | 1200 |",
  "",
  "Read [the guide](https://example.com/guide).",
].join("\n");

describe("the model's Markdown", () => {
  let llm: FakeLlm | undefined;
  afterEach(async () => {
    await llm?.close();
  });

  /** A model that answers `text` to each of `runs` runs. */
  const start = async (text: string, runs = 1) => {
    const script = Array.from({ length: runs }, () => ({ text, chunk_size: 5 }));
    llm = await startFakeLlm({ apiKey: API_KEY, script });
    return { PENGUIN_HOME: tempDir("data"), OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${llm.url}/v1` };
  };
  const args = () => ["run", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "go"];

  test("is rendered on a terminal: no emphasis marks, a fence's lines verbatim, a table aligned", async () => {
    const env = await start(ANSWER);
    const run = new TerminalRun(args(), { ...env, NO_COLOR: "" });
    expect(await run.exitCode()).toBe(0);
    const screen = run.lines;
    expect(screen).toContain("\nThe tests pass now.\n");
    expect(screen).not.toContain("**pass**");
    expect(screen).not.toContain("## Result");
    expect(screen).toMatch(/^Result$/m);
    // The code keeps its own characters (`**` included) and its indentation, set apart by two spaces.
    expect(screen).toContain("\n  npm test -- **/*.ts\n    indented line\n");
    expect(screen).not.toContain("```");
    expect(screen).toContain("file             │ lines\n");
    expect(screen).toContain("a.ts             │     7\n");
    expect(screen).toContain("src/long-name.ts │  1200\n");
    expect(screen).toContain("Read the guide (https://example.com/guide).");
    // Styled: bold is a terminal sequence, not asterisks.
    expect(run.bytes).toContain("\u001b[1mpass\u001b[22m");
  }, 60_000);

  test("is rendered in a chat at a terminal too", async () => {
    const env = await start(ANSWER);
    const chat = new TerminalRun(["chat", "--model", "openai/fake-model", "-w", tempDir("ws")], {
      ...env,
      NO_COLOR: "",
    });
    await chat.waitFor("/help for commands");
    chat.type("report\r");
    await chat.waitFor("── done");
    expect(chat.screen).toContain("The tests pass now.");
    expect(chat.screen).not.toContain("**pass**");
    expect(chat.screen).toContain("src/long-name.ts │  1200");
    chat.type("/exit\r");
    expect(await chat.exitCode()).toBe(0);
  }, 60_000);

  test("is printed exactly as written to a pipe, and as plain text on a terminal with NO_COLOR", async () => {
    const env = await start(ANSWER, 2);
    const piped = await penguin(args(), { env: { ...env, NO_COLOR: "" } });
    expect(piped.exitCode).toBe(0);
    expect(piped.stdout).toBe(ANSWER);

    const run = new TerminalRun(args(), { ...env, NO_COLOR: "1" });
    expect(await run.exitCode()).toBe(0);
    expect(run.screen).toContain("The tests **pass** now.");
    expect(run.screen).toContain("| src/long-name.ts | 1200 |");
    expect(run.bytes).not.toContain("\u001b[1m");
  }, 60_000);

  test("an escape sequence in the model's text never reaches the terminal", async () => {
    const hostile = "Done \u001b]0;owned title\u0007\u001b[2J**really**\u001b[31m red\u001bc.";
    for (const noColor of ["", "1"]) {
      const env = await start(hostile);
      const run = new TerminalRun(args(), { ...env, NO_COLOR: noColor });
      expect(await run.exitCode()).toBe(0);
      expect(run.screen).toMatch(/Done (\*\*)?really(\*\*)? red␛c\./);
      expect(run.bytes).not.toContain("\u001b]0;");
      expect(run.bytes).not.toContain("\u001b[2J");
      expect(run.bytes).not.toContain("\u001b[31m");
      expect(run.bytes).not.toContain("\u001bc");
      await llm?.close();
      llm = undefined;
    }
  }, 60_000);
});
