import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { fakeOpenAiPerTest, kindOf, penguin, readJsonLines, tempDir, traceFiles } from "./helpers.js";

// Plan mode from the CLI: `penguin run --plan` refuses a write and prints the plan; `/plan` in a
// chat (lines piped on stdin) switches it on, and `/plan approve` carries the plan out.

const start = fakeOpenAiPerTest("sk-test-penguin-plan-0123456789");

const writeCall = (file: string, id: string) => ({
  tool_calls: [{ id, name: "write_file", arguments: { file_path: file, content: "hello\n" } }],
});

describe("plan mode in the CLI", () => {
  test("run --plan refuses a write, prints the plan and how to approve it, and exits 0", async () => {
    const { llm, env } = await start([]);
    const ws = tempDir("ws");
    const target = join(ws, "notes.txt");
    llm.setScript([writeCall(target, "w1"), { text: "Plan: 1. write notes.txt" }]);
    const r = await penguin(["run", "--plan", "--model", "openai/fake-model", "-w", ws, "-m", "Add notes"], {
      env,
    });
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.exitCode).toBe(0);
    expect(existsSync(target)).toBe(false);
    expect(r.stdout).toContain("Plan: 1. write notes.txt");
    expect(r.stderr).toContain("plan proposed");
    expect(r.stderr).toMatch(/approve it with: penguin chat --resume \S+, then \/plan approve/);
    const [trace] = traceFiles(env.PENGUIN_HOME);
    const records = readJsonLines(trace);
    const denial = records.find((m) => m.payload.type === "approval_decision");
    expect(denial?.payload).toMatchObject({ decision: "deny", source: { kind: "mode", name: "plan" } });
    expect(records.map(kindOf)).toContain("plan_proposed");
  });

  test("a plan from run --plan is approved in a new process: chat --resume, then /plan approve", async () => {
    const { llm, env } = await start([]);
    const ws = tempDir("ws");
    const target = join(ws, "notes.txt");
    llm.setScript([
      { text: "Plan: write notes.txt with hello." },
      writeCall(target, "w1"),
      { text: "Done." },
    ]);
    const planned = await penguin(
      ["run", "--plan", "--model", "openai/fake-model", "-w", ws, "-m", "Add notes"],
      {
        env,
      },
    );
    expect(planned.exitCode).toBe(0);
    const id = /penguin chat --resume (\S+),/.exec(planned.stderr)?.[1];
    expect(id).toBeDefined();
    const r = await penguin(["chat", "--resume", String(id)], { env, input: "/plan approve\n/exit\n" });
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.exitCode).toBe(0);
    expect(readFileSync(target, "utf8")).toBe("hello\n");
    const body = llm.requests[1]?.body as { messages: { content?: unknown }[] };
    expect(JSON.stringify(body.messages.at(-1)?.content)).toContain("Plan: write notes.txt with hello.");
  });

  test("--plan with another --approve mode is a usage error", async () => {
    const { env } = await start([]);
    const r = await penguin(
      [
        "run",
        "--plan",
        "--approve",
        "deny-all",
        "--model",
        "openai/fake-model",
        "-w",
        tempDir("ws"),
        "-m",
        "x",
      ],
      { env },
    );
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("--plan is plan mode; it cannot be used with --approve deny-all");
  });

  test("chat: /plan refuses the write, /plan approve runs the plan with writes allowed", async () => {
    const { llm, env } = await start([]);
    const ws = tempDir("ws");
    const target = join(ws, "notes.txt");
    llm.setScript([
      writeCall(target, "w1"),
      { text: "Plan: write notes.txt with hello." },
      writeCall(target, "w2"),
      { text: "Done." },
    ]);
    const r = await penguin(["chat", "--model", "openai/fake-model", "-w", ws], {
      env,
      input: "/plan\nAdd notes\n/plan approve\n/exit\n",
    });
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain("approval mode: plan");
    expect(r.stderr).toContain("approve it with /plan approve [mode], or type changes to keep planning");
    expect(r.stderr).toContain("approval mode: allow-all; carrying out the plan");
    expect(readFileSync(target, "utf8")).toBe("hello\n");
    const [trace] = traceFiles(env.PENGUIN_HOME);
    const decisions = readJsonLines(trace)
      .filter((m) => m.payload.type === "approval_decision")
      .map((m) => [m.payload.tool_call_id, m.payload.decision]);
    expect(decisions).toEqual([
      ["w1", "deny"],
      ["w2", "allow"],
    ]);
    const body = llm.requests[2]?.body as { messages: { content?: unknown }[] };
    expect(JSON.stringify(body.messages.at(-1)?.content)).toContain("Carry out the approved plan");
  });

  test("update_plan's checklist shows as plain lines when the output is not a terminal", async () => {
    const { llm, env } = await start([]);
    llm.setScript([
      {
        tool_calls: [
          {
            id: "p1",
            name: "update_plan",
            arguments: {
              steps: [
                { step: "Read the code", status: "done" },
                { step: "Fix it", status: "in_progress" },
                { step: "Test it", status: "pending" },
              ],
            },
          },
        ],
      },
      { text: "On it." },
    ]);
    const r = await penguin(["run", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "Fix it"], {
      env,
    });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain("plan 1/3 done\n    [x] Read the code\n    [>] Fix it\n    [ ] Test it");
  });
});
