import { type OmniMessage, parseEnvelopeLine } from "@penguin/protocol";
import { describe, expect, test } from "vitest";
import { fakeOpenAiPerTest, penguin, tempDir } from "./helpers.js";

const API_KEY = "sk-test-penguin-json-output-0123456789";

/**
 * stdout of `--json` as envelopes: no blank lines, and every line must pass the protocol's own
 * reader (schema included), not just JSON.parse. (The helper drops the final newline.)
 */
function envelopes(stdout: string): OmniMessage[] {
  return stdout.split("\n").map((line, i) => {
    const parsed = parseEnvelopeLine(line);
    if (!parsed.ok)
      throw new Error(`stdout line ${i + 1} is not an envelope: ${JSON.stringify(parsed.error)}`);
    return parsed.value;
  });
}

const kind = (m: OmniMessage) => (m.type === "session_meta" ? "session_meta" : m.payload.type);

describe("penguin run --json", () => {
  const start = fakeOpenAiPerTest(API_KEY);

  test("a resumed run starts with the session's recorded session_meta too, printed once", async () => {
    const { env } = await start([{ text: "First." }, { text: "Second." }]);
    const ws = tempDir("ws");
    const first = await penguin(["run", "--json", "--model", "openai/fake-model", "-w", ws, "-m", "one"], {
      env,
    });
    expect(first.exitCode).toBe(0);
    const meta = envelopes(first.stdout)[0] as OmniMessage;
    const id = (meta.payload as { session_id: string }).session_id;

    const resumed = await penguin(["run", "--json", "--resume", id, "-m", "two"], { env });
    expect(resumed.exitCode).toBe(0);
    const messages = envelopes(resumed.stdout);
    expect(messages.map(kind)[0]).toBe("session_meta");
    expect(messages.filter((m) => m.type === "session_meta")).toHaveLength(1);
    expect(messages[0]).toEqual(meta);
    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
  });

  test("every stdout line is a valid envelope: session_meta first, one task_end last, calls paired with outputs", async () => {
    const { env } = await start([
      {
        thinking: "List the folder first.",
        tool_calls: [{ name: "exec_command", arguments: { description: "List", cmd: "echo json-listing" } }],
      },
      { text: "One file." },
    ]);
    const ws = tempDir("ws");
    const r = await penguin(
      ["run", "--json", "--model", "openai/fake-model", "-w", ws, "-m", "what is here?"],
      {
        env,
      },
    );
    expect(r.exitCode).toBe(0);
    const messages = envelopes(r.stdout);
    const kinds = messages.map(kind);

    expect(kinds[0]).toBe("session_meta");
    expect(kinds.filter((k) => k === "session_meta")).toHaveLength(1);
    expect(messages[0].payload).toMatchObject({ provider: "openai", model_id: "fake-model", workspace: ws });
    expect(kinds.at(-1)).toBe("task_end");
    expect(kinds.filter((k) => k === "task_end")).toHaveLength(1);
    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });

    // The task's content, partials and complete messages, in between.
    for (const k of [
      "tool_list_ready",
      "partial_thinking",
      "thinking",
      "partial_text",
      "text",
      "token_usage",
    ]) {
      expect(kinds).toContain(k);
    }
    const calls = messages.flatMap((m) => (m.payload.type === "tool_call" ? [m.payload.tool_call_id] : []));
    const outputs = messages.flatMap((m) =>
      m.payload.type === "tool_call_output" ? [m.payload.tool_call_id] : [],
    );
    expect(calls).toHaveLength(1);
    expect(outputs).toEqual(calls);
    expect(kinds.filter((k) => k === "request_begin")).toHaveLength(2);
    expect(kinds.filter((k) => k === "request_end")).toHaveLength(2);
    // Nothing but envelopes on stdout; where the trace is goes to stderr.
    expect(r.stdout).not.toContain("trace:");
    expect(r.stderr).toMatch(/^trace: \S+\.jsonl$/m);
  });

  test("a task that ends on a limit still ends its stream with task_end, and exits 1", async () => {
    const { env } = await start([
      { tool_calls: [{ name: "exec_command", arguments: { description: "Once", cmd: "echo once" } }] },
      { text: "never asked" },
    ]);
    const r = await penguin(
      ["run", "--json", "--max-turns", "1", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "go"],
      { env },
    );
    expect(r.exitCode).toBe(1);
    const messages = envelopes(r.stdout);
    expect(kind(messages[0])).toBe("session_meta");
    expect(messages.slice(-2).map((m) => m.payload)).toMatchObject([
      { type: "limit_reached", limit: "max_turns", max: 1 },
      { type: "task_end", status: "aborted", message: "reached max turns (1); stopping" },
    ]);
    // Nothing rendered for a person on stdout or stderr besides the trace line.
    expect(r.stderr).not.toContain("■");
  });

  test("a failed request keeps the framing: session_meta first, task_end failed last", async () => {
    const { env } = await start([{ error: { status: 400, message: "bad request from the fake" } }]);
    const r = await penguin(
      ["run", "--json", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "hi"],
      { env },
    );
    expect(r.exitCode).toBe(1);
    const messages = envelopes(r.stdout);
    expect(kind(messages[0])).toBe("session_meta");
    expect(messages.at(-1)?.payload).toMatchObject({ type: "task_end", status: "failed" });
    expect(JSON.stringify(messages.at(-1))).toContain("bad request from the fake");
  });
});
