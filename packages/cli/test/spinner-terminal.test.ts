import { type FakeLlm, startFakeLlm } from "@penguin/fake-llm";
import { afterEach, describe, expect, test } from "vitest";
import { penguin, tempDir } from "./helpers.js";
import { TerminalRun } from "./pty.js";

const API_KEY = "sk-test-penguin-spinner-0123456789";
/** The spinner's frames (screen.ts). */
const FRAME = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

const slowCommand = (cmd: string) => ({
  tool_calls: [{ name: "exec_command", arguments: { description: "Take a nap", cmd } }],
});

describe("the spinner of a running call", () => {
  let llm: FakeLlm | undefined;
  afterEach(async () => {
    await llm?.close();
  });

  const start = async (cmd: string, runs = 1) => {
    const script = Array.from({ length: runs }, () => [slowCommand(cmd), { text: "Rested." }]).flat();
    llm = await startFakeLlm({ apiKey: API_KEY, script });
    return { PENGUIN_HOME: tempDir("data"), OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${llm.url}/v1` };
  };
  const args = () => ["run", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "rest"];

  test("turns on one line with the elapsed time while a command runs, and is gone after", async () => {
    const env = await start("sleep 2.2");
    const run = new TerminalRun(args(), env);
    await run.waitFor(new RegExp(`${FRAME.source} Take a nap · 1s`));
    expect(await run.exitCode()).toBe(0);
    // Redrawn in place: each frame is erased (CR, erase line) before the next is drawn.
    const drawn = run.bytes.match(new RegExp(`\\r\\u001b\\[2K${FRAME.source} Take a nap`, "g")) ?? [];
    expect(drawn.length).toBeGreaterThan(5);
    const frames = new Set(drawn.map((d) => FRAME.exec(d)?.[0]));
    expect(frames.size).toBeGreaterThan(1);
    // Once everything is printed, no status line is left on the screen.
    expect(run.lines).not.toMatch(FRAME);
    expect(run.lines).toMatch(/│ \[exit code: 0\] \(2s\)\n/);
    expect(run.lines).toContain("Rested.");
  }, 60_000);

  test("is never drawn on a pipe, nor with --json", async () => {
    const env = await start("sleep 1.2", 2);
    const piped = await penguin(args(), { env });
    expect(piped.exitCode).toBe(0);
    expect(piped.stderr).toContain("Take a nap");
    expect(piped.stderr).not.toMatch(FRAME);
    expect(piped.stderr).not.toContain("\r");

    const json = new TerminalRun([...args(), "--json"], env);
    expect(await json.exitCode()).toBe(0);
    expect(json.bytes).toContain('"tool_call_output"');
    expect(json.bytes).not.toMatch(FRAME);
  }, 60_000);

  test("stops when the task is interrupted", async () => {
    const env = await start("sleep 30.5");
    const run = new TerminalRun(args(), env);
    await run.waitFor(new RegExp(`${FRAME.source} Take a nap · 1s`));
    run.type("\u0003");
    expect(await run.exitCode()).toBe(1);
    const after = run.bytes.slice(run.bytes.indexOf("interrupted"));
    expect(after).not.toMatch(FRAME);
    expect(run.lines).not.toMatch(FRAME);
  }, 60_000);
});
