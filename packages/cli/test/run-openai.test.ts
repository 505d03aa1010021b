import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeLlm, startFakeLlm } from "@penguin/fake-llm";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { kindOf, penguin, readJsonLines, tempDir, traceFiles } from "./helpers.js";

const API_KEY = "sk-test-penguin-0123456789abcdef";

describe("penguin run against an OpenAI-compatible server", () => {
  let llm: FakeLlm;
  let dataRoot: string;
  let workspace: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    llm = await startFakeLlm({
      apiKey: API_KEY,
      script: [
        {
          text: "Let me run it.",
          tool_calls: [
            {
              name: "exec_command",
              arguments: {
                description: "Print a greeting",
                cmd: "echo hello-from-the-tool && echo to-stderr >&2",
              },
            },
          ],
        },
        { text: "The command printed hello-from-the-tool." },
      ],
    });
    dataRoot = tempDir("data");
    workspace = tempDir("ws");
    env = { PENGUIN_HOME: dataRoot, OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${llm.url}/v1` };
  });
  afterEach(async () => {
    await llm.close();
  });

  test("streams the answer, runs the command, feeds its output back and prints the trace path", async () => {
    const r = await penguin(["run", "--model", "openai/fake-model", "-w", workspace, "-m", "greet me"], {
      env,
    });
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("Let me run it.");
    expect(r.stdout).toContain("The command printed hello-from-the-tool.");
    expect(r.stderr).toContain("exec_command: Print a greeting");
    expect(r.stderr).toContain("hello-from-the-tool");

    // The second request carried the tool output back to the model.
    expect(llm.requests).toHaveLength(2);
    const second = llm.requests[1].body as { messages: Array<{ role: string; content: unknown }> };
    const toolMessage = second.messages.find((m) => m.role === "tool");
    expect(JSON.stringify(toolMessage?.content)).toContain("hello-from-the-tool");

    const [trace] = traceFiles(dataRoot);
    expect(r.stderr).toContain(`trace: ${trace}`);
    const kinds = readJsonLines(trace).map(kindOf);
    expect(kinds[0]).toBe("session_meta");
    expect(kinds[1]).toBe("tool_list_ready");
    expect(kinds[2]).toBe("text");
    // Each model request is framed; the tool call is approved, then answered exactly once.
    const call = kinds.indexOf("tool_call");
    const decision = kinds.indexOf("approval_decision");
    const output = kinds.indexOf("tool_call_output");
    expect(kinds.indexOf("request_begin")).toBeLessThan(call);
    expect(call).toBeLessThan(decision);
    expect(decision).toBeLessThan(output);
    expect(kinds.filter((k) => k === "tool_call_output")).toHaveLength(1);
    expect(kinds.filter((k) => k === "request_end")).toHaveLength(2);
    expect(kinds.at(-1)).toBe("task_end");
    // Traces store complete messages only.
    expect(kinds.some((k) => k.startsWith("partial_"))).toBe(false);
  });

  test("a command that prints the API key: the model, the terminal, the trace and the logs see it redacted", async () => {
    llm.setScript([
      {
        tool_calls: [
          {
            name: "exec_command",
            arguments: { description: "Print the key", cmd: 'echo "key=$OPENAI_API_KEY"' },
          },
        ],
      },
      { text: "Printed it." },
    ]);
    const r = await penguin(["run", "--model", "openai/fake-model", "-w", workspace, "-m", "print the key"], {
      env: { ...env, PENGUIN_LOG: "debug" },
    });
    expect(r.exitCode).toBe(0);
    // The command really printed the key (the child's environment has it); redaction happened
    // at the source, so the terminal shows the marker instead.
    expect(r.stderr).toContain("key=[redacted]");
    expect(r.stderr + r.stdout).not.toContain(API_KEY);
    const second = JSON.stringify(llm.requests[1].body);
    expect(second).toContain("key=[redacted]");
    expect(second).not.toContain(API_KEY);

    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
        d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)],
      );
    const files = walk(dataRoot);
    expect(files.some((f) => f.endsWith(".log"))).toBe(true);
    for (const file of files) expect(readFileSync(file, "utf8")).not.toContain(API_KEY);
  });

  test("--json prints every envelope as one JSON line and nothing else on stdout", async () => {
    const r = await penguin(["run", "--json", "--model", "openai/fake-model", "-w", workspace, "-m", "hi"], {
      env,
    });
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.split("\n").filter((l) => l.length > 0);
    const parsed: Array<{ type: string; payload: { type?: string } }> = lines.map((l) => JSON.parse(l));
    expect(parsed[0].type).toBe("session_meta");
    expect(parsed.some((m) => m.payload.type === "partial_text")).toBe(true);
    expect(parsed.at(-1)?.payload.type).toBe("task_end");
  });

  test("a wrong key ends the task at once with exit code 1 and a clear line", async () => {
    const r = await penguin(["run", "--model", "openai/fake-model", "-w", workspace, "-m", "hi"], {
      env: { ...env, OPENAI_API_KEY: "sk-wrong" },
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/auth/);
    expect(llm.requests).toHaveLength(1);
  });
});
