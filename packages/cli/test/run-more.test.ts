import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { fakeOpenAiPerTest, kindOf, penguin, readJsonLines, tempDir, traceFiles } from "./helpers.js";

const API_KEY = "sk-test-penguin-more-0123456789abcdef";

describe("penguin run without a terminal", () => {
  const start = fakeOpenAiPerTest(API_KEY);

  test("--record saves a cassette that replays the same session offline", async () => {
    const { env } = await start([
      {
        tool_calls: [{ name: "exec_command", arguments: { description: "Greet", cmd: "echo recorded-hi" } }],
      },
      { text: "Recorded answer." },
    ]);
    const cassette = join(tempDir("rec"), "session.cassette.yaml");
    const r = await penguin(
      ["run", "--record", cassette, "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "greet"],
      { env },
    );
    expect(r.exitCode).toBe(0);
    expect(statSync(cassette).mode & 0o777).toBe(0o600);
    expect(readFileSync(cassette, "utf8")).not.toContain(API_KEY);

    // The replay needs no server and no key.
    const replay = await penguin(
      ["run", "--model", `replay:${cassette}`, "-w", tempDir("ws"), "-m", "greet"],
      {
        env: { PENGUIN_HOME: tempDir("data") },
      },
    );
    expect(replay.stderr).not.toMatch(/internal error/);
    expect(replay.exitCode).toBe(0);
    expect(replay.stdout).toContain("Recorded answer.");
    expect(replay.stderr).toContain("recorded-hi");
  });

  test("--record with --resume is a usage error", async () => {
    const r = await penguin(["run", "--record", "x.yaml", "--resume", "abc", "-m", "hi"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--record .* cannot be used with --resume/);
  });

  test("a call's description is printed as soon as it has streamed, before the command's own line", async () => {
    const { env } = await start([
      {
        chunk_size: 4,
        tool_calls: [
          { name: "exec_command", arguments: { description: "Show the date", cmd: "echo streamed-call" } },
        ],
      },
      { text: "ok" },
    ]);
    const r = await penguin(["run", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "go"], {
      env,
    });
    expect(r.exitCode).toBe(0);
    // Printed once, as a plain line (no spinner without a terminal), then the command, then its output.
    expect(r.stderr.match(/● exec_command: Show the date/g)).toHaveLength(1);
    expect(r.stderr).not.toMatch(/[⠋⠙⠹]|\u001b\[/);
    const order = ["● exec_command: Show the date", "  echo streamed-call", "│ streamed-call"].map((s) =>
      r.stderr.indexOf(s),
    );
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  test("a call that needs a human is denied without a terminal, with how to choose a mode", async () => {
    const { env } = await start([
      { tool_calls: [{ name: "exec_command", arguments: { description: "Try", cmd: "echo nope" } }] },
      { text: "I could not run it." },
    ]);
    const r = await penguin(
      ["run", "--approve", "always-ask", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "go"],
      { env },
    );
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/denied exec_command: it needs approval and stdin is not a terminal/);
    expect(r.stderr).toMatch(/--approve allow-all/);
  });

  test("a call denied for want of a terminal is recorded as no_terminal, not as the user's deny", async () => {
    const { env, llm } = await start([
      {
        tool_calls: [{ id: "c1", name: "exec_command", arguments: { description: "Try", cmd: "echo nope" } }],
      },
      { text: "I could not run it." },
    ]);
    const r = await penguin(
      ["run", "--approve", "always-ask", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "go"],
      { env },
    );
    expect(r.exitCode).toBe(0);
    const [trace] = traceFiles(env.PENGUIN_HOME);
    const decision = readJsonLines(trace as string).find((m) => m.payload.type === "approval_decision");
    expect(decision?.payload).toMatchObject({
      decision: "deny",
      source: { kind: "no_terminal" },
      reason: "stdin is not a terminal",
    });
    // The model is told nobody could be asked, not that the user refused.
    const body = (llm.requests[1]?.body ?? { messages: [] }) as {
      messages: { role: string; content: unknown }[];
    };
    const messages = body.messages;
    const toolMessage = String(messages.find((m) => m.role === "tool")?.content);
    expect(toolMessage).toContain("there is no terminal to ask");
    expect(toolMessage).not.toContain("denied by user");

    // The audit names it too, beside the outcome the contract gives a denied call.
    const sessionId = String(readJsonLines(trace as string)[0]?.payload.session_id);
    const audit = await penguin(["trace", sessionId, "--approvals"], { env });
    expect(audit.stdout).toContain("   decided by: no_terminal\n   reason: stdin is not a terminal");
    expect(audit.stdout).toMatch(/call c1 · .* · outcome aborted \(denied: no terminal to ask\)/);
  });

  test("PENGUIN_LOG=debug writes JSON lines under the data root, with no secret, and nothing on stdout", async () => {
    const { env } = await start([{ text: "Logged answer." }]);
    const r = await penguin(
      ["run", "--json", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "hi"],
      {
        env: { ...env, PENGUIN_LOG: "debug" },
      },
    );
    expect(r.exitCode).toBe(0);
    // stdout still holds envelopes only.
    for (const line of r.stdout.trim().split("\n")) expect(JSON.parse(line).type).toBeDefined();
    const file = join(env.PENGUIN_HOME, "logs", "cli.log");
    expect(r.stderr).toContain(`log: ${file}`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(API_KEY);
    const entries = text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(entries.map((e) => e.msg)).toEqual(
      expect.arrayContaining(["command start", "session_meta", "request_end", "task_end", "command end"]),
    );
  });

  test("without PENGUIN_LOG or --verbose no log file is written", async () => {
    const { env } = await start([{ text: "Quiet." }]);
    const r = await penguin(["run", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "hi"], {
      env: { ...env, PENGUIN_LOG: "" },
    });
    expect(r.exitCode).toBe(0);
    expect(() => statSync(join(env.PENGUIN_HOME, "logs", "cli.log"))).toThrow();
  });

  test("an unknown PENGUIN_LOG level is a usage error", async () => {
    const r = await penguin(["run", "-m", "hi", "-w", tempDir("ws")], {
      env: { PENGUIN_HOME: tempDir("data"), PENGUIN_LOG: "loud" },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/PENGUIN_LOG="loud" is not a log level/);
  });
});

describe("penguin chat without a terminal", () => {
  const start = fakeOpenAiPerTest(API_KEY);

  test("each piped line is a prompt of one session; slash commands work; /exit ends it", async () => {
    const { llm, env } = await start([{ text: "Answer one." }, { text: "Answer two." }]);
    const r = await penguin(["chat", "--model", "openai/fake-model", "-w", tempDir("ws")], {
      env,
      input: "first question\n/approve read-only\n/help\nsecond question\n/exit\nnever sent\n",
    });
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("Answer one.");
    expect(r.stdout).toContain("Answer two.");
    expect(r.stderr).toContain("approval mode: read-only");
    expect(r.stderr).toContain("/resume <id>");
    expect(llm.requests).toHaveLength(2);
    expect(JSON.stringify(llm.requests[1].body)).toContain("first question");
    const [trace] = traceFiles(env.PENGUIN_HOME);
    const prompts = readJsonLines(trace).filter((x) => kindOf(x) === "text" && x.payload.role === "user");
    expect(prompts.map((x) => x.payload.text)).toEqual(["first question", "second question"]);
  });

  test("--resume of an unknown session and of an empty data root are usage errors", async () => {
    const unknown = await penguin(["chat", "--resume", "20990101-000000-abcdef"], {
      env: { PENGUIN_HOME: tempDir("data") },
    });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/no session 20990101-000000-abcdef/);
    const none = await penguin(["chat", "--resume"], { env: { PENGUIN_HOME: tempDir("data") } });
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toMatch(/there is no session to resume/);
  });
});
