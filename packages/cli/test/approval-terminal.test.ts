import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeLlm, startFakeLlm } from "@penguin/fake-llm";
import { afterEach, describe, expect, test } from "vitest";
import { kindOf, readJsonLines, tempDir, traceFiles } from "./helpers.js";
import { TerminalRun } from "./pty.js";

const API_KEY = "sk-test-penguin-approvals-0123456789";

const command = (cmd: string, description: string) => ({
  tool_calls: [{ name: "exec_command", arguments: { description, cmd } }],
});

describe("always-ask at a terminal", () => {
  let llm: FakeLlm | undefined;
  afterEach(async () => {
    await llm?.close();
  });

  test("y runs, n denies, p grants a command prefix that approves the next match and not others", async () => {
    llm = await startFakeLlm({
      apiKey: API_KEY,
      script: [
        command("echo alpha-out", "Say alpha"),
        command("printf beta-out", "Say beta"),
        command("echo gamma-out", "Say gamma"),
        command("echo delta-out", "Say delta"),
        command("printf epsilon-out", "Say epsilon"),
        { text: "All done." },
      ],
    });
    const dataRoot = tempDir("data");
    const run = new TerminalRun(
      ["run", "--approve", "always-ask", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "go"],
      { PENGUIN_HOME: dataRoot, OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${llm.url}/v1` },
    );
    // The question names the tool, its description and the whole command, and says what Enter does.
    await run.waitFor("allow? [y/N/p/a]");
    expect(run.screen).toContain("exec_command: Say alpha");
    expect(run.screen).toContain("$ echo alpha-out");
    // Every answer the question takes, with what it does.
    expect(run.lines).toContain(
      '  y allow once · n deny · p allow commands starting with "echo alpha-out" for this session ' +
        "(p <prefix> names another prefix of this command) · a allow every exec_command call for " +
        "this session · Enter = n · Ctrl-C deny and stop the task\n",
    );
    run.type("y\r");
    await run.waitFor("allow? [y/N/p/a]", 2);
    expect(run.screen).toContain("$ printf beta-out");
    run.type("n\r");
    await run.waitFor("allow? [y/N/p/a]", 3);
    run.type("p echo\r");
    // delta matches the "echo" prefix and runs without a question; epsilon does not.
    await run.waitFor("allow? [y/N/p/a]", 4);
    expect(run.screen).toContain("$ printf epsilon-out");
    run.type("y\r");
    expect(await run.exitCode()).toBe(0);
    const screen = run.screen;
    expect(screen).toContain("All done.");
    expect(screen.match(/allow\? \[y\/N\/p\/a\]/g)).toHaveLength(4);
    expect(screen).not.toContain("$ echo delta-out");
    expect(screen).toContain("delta-out");

    const decisions = readJsonLines(traceFiles(dataRoot)[0])
      .filter((r) => kindOf(r) === "approval_decision")
      .map((r) => ({
        decision: r.payload.decision,
        by: (r.payload.source as { kind: string }).kind,
        rule: r.payload.session_rule,
      }));
    expect(decisions).toEqual([
      { decision: "allow", by: "human", rule: undefined },
      { decision: "deny", by: "human", rule: undefined },
      { decision: "allow", by: "human", rule: { commandPrefix: "echo" } },
      { decision: "allow", by: "session_rule", rule: undefined },
      { decision: "allow", by: "human", rule: undefined },
    ]);
    const outputs = readJsonLines(traceFiles(dataRoot)[0])
      .filter((r) => kindOf(r) === "tool_call_output")
      .map((r) => String(r.payload.output));
    expect(outputs[0]).toContain("alpha-out");
    expect(outputs[1]).not.toContain("beta-out");
    expect(outputs[3]).toContain("delta-out");
  });

  test("the question for read_file offers no prefix choice p", async () => {
    llm = await startFakeLlm({
      apiKey: API_KEY,
      script: [
        { tool_calls: [{ name: "read_file", arguments: { file_path: "notes.txt" } }] },
        { text: "Read it." },
      ],
    });
    const dataRoot = tempDir("data");
    const run = new TerminalRun(
      ["run", "--approve", "always-ask", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "go"],
      { PENGUIN_HOME: dataRoot, OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${llm.url}/v1` },
    );
    await run.waitFor("allow? [y/N/a]");
    expect(run.screen).toContain("a allow every read_file call for this session");
    expect(run.screen).not.toContain("[y/N/p/a]");
    expect(run.screen).not.toMatch(/p allow commands/);
    run.type("maybe\r");
    await run.waitFor('"maybe" is not an answer: y, n, a or Enter (= n)');
    run.type("n\r");
    expect(await run.exitCode()).toBe(0);
    expect(run.screen).toContain("Read it.");
  });

  test("write_file and edit_file: y, n and a with what each does, no p; the change is shown in colour", async () => {
    llm = await startFakeLlm({
      apiKey: API_KEY,
      script: [
        {
          tool_calls: [{ name: "write_file", arguments: { file_path: "notes.txt", content: "one\ntwo\n" } }],
        },
        {
          tool_calls: [
            { name: "edit_file", arguments: { file_path: "notes.txt", old_string: "two", new_string: "2" } },
          ],
        },
        { text: "Edited." },
      ],
    });
    const dataRoot = tempDir("data");
    const ws = tempDir("ws");
    const run = new TerminalRun(
      ["run", "--approve", "always-ask", "--model", "openai/fake-model", "-w", ws, "-m", "go"],
      { PENGUIN_HOME: dataRoot, OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${llm.url}/v1`, NO_COLOR: "" },
    );
    await run.waitFor("allow? [y/N/a]");
    expect(run.screen).toContain("? write_file notes.txt");
    expect(run.lines).toContain(
      "  y allow once · n deny · a allow every write_file call for this session · Enter = n · " +
        "Ctrl-C deny and stop the task\n",
    );
    expect(run.screen).not.toContain("p allow");
    run.type("y\r");
    await run.waitFor("allow? [y/N/a]", 2);
    // The edit asks with its old text as removed lines and its new text as added ones.
    expect(run.lines).toContain("? edit_file notes.txt\n  file_path: notes.txt\n  - two\n  + 2\n");
    expect(run.bytes).toContain("\u001b[31m- two\u001b[39m");
    expect(run.bytes).toContain("\u001b[32m+ 2\u001b[39m");
    expect(run.screen).toContain("a allow every edit_file call for this session");
    run.type("y\r");
    expect(await run.exitCode()).toBe(0);
    expect(readFileSync(join(ws, "notes.txt"), "utf8")).toBe("one\n2\n");
    // The diff edit_file answered with: removed lines red, added ones green.
    expect(run.lines).toMatch(/│ -two\n\s+│ \+2\n/);
    expect(run.bytes).toContain("\u001b[31m-two\u001b[39m");
    expect(run.bytes).toContain("\u001b[32m+2\u001b[39m");
    expect(run.screen).toContain("Edited.");
  });

  test("Enter takes the default (deny), and an answer that is not one is asked again", async () => {
    llm = await startFakeLlm({
      apiKey: API_KEY,
      script: [command("echo never-runs", "Try it"), { text: "Understood." }],
    });
    const dataRoot = tempDir("data");
    const run = new TerminalRun(
      ["run", "--approve", "read-only", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "go"],
      { PENGUIN_HOME: dataRoot, OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${llm.url}/v1` },
    );
    await run.waitFor("allow? [y/N/p/a]");
    run.type("maybe\r");
    await run.waitFor('"maybe" is not an answer');
    run.type("\r");
    expect(await run.exitCode()).toBe(0);
    const outputs = readJsonLines(traceFiles(dataRoot)[0]).filter((r) => kindOf(r) === "tool_call_output");
    expect(String(outputs[0].payload.output)).not.toContain("never-runs\n");
    expect(run.screen).toContain("Understood.");
  });
});
