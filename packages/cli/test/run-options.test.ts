import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { fakeOpenAiPerTest, penguin, tempDir } from "./helpers.js";

const API_KEY = "sk-test-penguin-run-options-0123456789";

/** A 1x1 transparent PNG: a real image file for `--attach`. */
const PNG_BYTES = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
  "base64",
);

const command = (cmd: string, description: string) => ({
  tool_calls: [{ name: "exec_command", arguments: { description, cmd } }],
});

/** The text of every user message of a recorded Chat Completions request, parts joined. */
function userTexts(body: unknown): string[] {
  const messages = (body as { messages: Array<{ role: string; content: unknown }> }).messages;
  return messages
    .filter((m) => m.role === "user")
    .map((m) =>
      typeof m.content === "string"
        ? m.content
        : (m.content as Array<{ type: string; text?: string }>)
            .filter((part) => part.type === "text")
            .map((part) => part.text)
            .join("\n"),
    );
}

/** Every content part of the user messages of a recorded Chat Completions request. */
function userParts(body: unknown): Array<{ type: string; image_url?: { url: string } }> {
  const messages = (body as { messages: Array<{ role: string; content: unknown }> }).messages;
  return messages
    .filter((m) => m.role === "user" && Array.isArray(m.content))
    .flatMap((m) => m.content as Array<{ type: string; image_url?: { url: string } }>);
}

describe("penguin run options that reach the model or stop the task", () => {
  const start = fakeOpenAiPerTest(API_KEY);

  test("--thinking sets the request's reasoning_effort: high is high, max is xhigh, none leaves it out", async () => {
    const { llm, env } = await start([{ text: "a" }, { text: "b" }, { text: "c" }]);
    for (const level of ["high", "max", "none"]) {
      const r = await penguin(
        ["run", "--thinking", level, "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "hi"],
        { env },
      );
      expect(r.exitCode).toBe(0);
    }
    const bodies = llm.requests.map((r) => r.body as Record<string, unknown>);
    expect(bodies.map((b) => b.reasoning_effort)).toEqual(["high", "xhigh", undefined]);
    expect("reasoning_effort" in bodies[2]).toBe(false);
  });

  test("--max-turns 1 stops after one model request with the limit's message and exit code 1", async () => {
    const { llm, env } = await start([command("echo turn-one", "First turn"), { text: "never asked" }]);
    const r = await penguin(
      ["run", "--max-turns", "1", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "go"],
      { env },
    );
    expect(r.exitCode).toBe(1);
    expect(llm.requests).toHaveLength(1);
    // The call of the one turn still ran; then the task ended on the limit.
    expect(r.stderr).toContain("│ turn-one");
    expect(r.stderr).toContain("■ reached max turns (1); stopping");
    expect(r.stderr).toMatch(/── aborted/);
    expect(r.stdout).not.toContain("never asked");
  });

  test("--budget-tokens stops the task once the reported usage is past the budget", async () => {
    const { llm, env } = await start([
      { ...command("echo spent", "Spend tokens"), usage: { input_tokens: 5000, output_tokens: 10 } },
      { text: "never asked" },
    ]);
    const r = await penguin(
      ["run", "--budget-tokens", "1000", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "go"],
      { env },
    );
    expect(r.exitCode).toBe(1);
    expect(llm.requests).toHaveLength(1);
    expect(r.stderr).toContain("■ token budget reached: 5010 of 1000 tokens used; stopping");
    expect(r.stdout).not.toContain("never asked");
  });

  test("--attach of an image for a vision model sends it as an image part of the prompt", async () => {
    const { llm, env } = await start([{ text: "A tiny image." }]);
    const ws = tempDir("ws");
    const image = join(ws, "pixel.png");
    writeFileSync(image, PNG_BYTES);
    // openai/… without a model entry reads images (docs/models.md, Vision).
    const r = await penguin(
      ["run", "--attach", image, "--model", "openai/fake-model", "-w", ws, "-m", "what is this?"],
      { env },
    );
    expect(r.exitCode).toBe(0);
    const body = llm.requests[0].body;
    const images = userParts(body).filter((p) => p.type === "image_url");
    expect(images.map((p) => p.image_url?.url)).toEqual([
      `data:image/png;base64,${PNG_BYTES.toString("base64")}`,
    ]);
    expect(JSON.stringify(body)).not.toContain("[attached image:");
  });

  test("--attach of an image for a text-only model names a copy in the session's scratchpad attachments", async () => {
    const { llm } = await start([{ text: "I will describe it." }]);
    const dataRoot = tempDir("data");
    // Any provider outside openai/openai-responses/anthropic, without an entry, is text-only.
    const env = { PENGUIN_HOME: dataRoot, LOCAL_API_KEY: API_KEY, LOCAL_BASE_URL: `${llm.url}/v1` };
    const ws = tempDir("ws");
    const image = join(ws, "pixel.png");
    writeFileSync(image, PNG_BYTES);
    const r = await penguin(
      ["run", "--attach", image, "--model", "local/text-model", "-w", ws, "-m", "what is this?"],
      { env },
    );
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.exitCode).toBe(0);
    const body = llm.requests[0].body;
    expect(userParts(body).filter((p) => p.type === "image_url")).toEqual([]);
    const prompt = userTexts(body).join("\n");
    const line = /\[attached image: (\S+)\]/.exec(prompt);
    expect(line, prompt).not.toBeNull();
    const copy = line?.[1] ?? "";
    expect(copy).not.toBe(image);
    expect(copy.startsWith(join(dataRoot, "scratchpad"))).toBe(true);
    expect(copy).toMatch(/\/attachments\/[^/]*pixel\.png$/);
    expect(readFileSync(copy)).toEqual(PNG_BYTES);
    expect(statSync(copy).mode & 0o777).toBe(0o600);
  });

  test("--attach of a file that is not an image names the file where it is", async () => {
    const { llm, env } = await start([{ text: "Read it." }]);
    const ws = tempDir("ws");
    const notes = join(ws, "notes.md");
    writeFileSync(notes, "# Notes\n");
    const r = await penguin(
      ["run", "--attach", notes, "--model", "openai/fake-model", "-w", ws, "-m", "summarize"],
      { env },
    );
    expect(r.exitCode).toBe(0);
    const prompt = userTexts(llm.requests[0].body).join("\n");
    expect(prompt).toContain("summarize");
    expect(prompt).toContain(`[attached file: ${notes}]`);
  });
});

describe("penguin run options that change what is shown", () => {
  const start = fakeOpenAiPerTest(API_KEY);

  test("--verbose writes a 0600 debug log under the data root's logs folder and prints its path", async () => {
    const { env } = await start([{ text: "Verbose answer." }]);
    const r = await penguin(
      ["run", "--verbose", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "hi"],
      // Without PENGUIN_LOG, only --verbose turns the log on.
      { env: { ...env, PENGUIN_LOG: "" } },
    );
    expect(r.exitCode).toBe(0);
    const file = join(env.PENGUIN_HOME, "logs", "cli.log");
    expect(r.stderr).toContain(`log: ${file}`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const entries = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { level: number; msg: string });
    // Debug level (pino's 20) entries are there: --verbose means debug.
    expect(entries.some((e) => e.level === 20 && e.msg === "command start")).toBe(true);
    expect(readFileSync(file, "utf8")).not.toContain(API_KEY);
  });

  test("--full-output shows a long tool output whole, where the default folds it", async () => {
    const cmd = "seq 1 40";
    const { env } = await start([
      command(cmd, "Count"),
      { text: "Counted." },
      command(cmd, "Count"),
      { text: "ok" },
    ]);
    const folded = await penguin(["run", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "go"], {
      env,
    });
    expect(folded.exitCode).toBe(0);
    expect(folded.stderr).toContain("│ 6\n");
    // 40 lines and the exit code line: six kept at each end, 29 folded.
    expect(folded.stderr).toContain("… 29 more lines …");
    expect(folded.stderr).not.toContain("│ 20\n");
    expect(folded.stderr).toContain("--full-output shows outputs whole");

    const whole = await penguin(
      ["run", "--full-output", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "go"],
      { env },
    );
    expect(whole.exitCode).toBe(0);
    for (let n = 1; n <= 40; n++) expect(whole.stderr).toContain(`│ ${n}\n`);
    expect(whole.stderr).not.toContain("more lines");
  });

  test("--show-thinking prints the model's thinking as it streams; without it the thinking is not shown", async () => {
    const thinking = "The user greets me; a short greeting back is enough.";
    const { env } = await start([
      { thinking, text: "Hello!" },
      { thinking, text: "Hello!" },
    ]);
    const shown = await penguin(
      ["run", "--show-thinking", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "hi"],
      { env },
    );
    expect(shown.exitCode).toBe(0);
    expect(shown.stderr).toContain(thinking);
    expect(shown.stdout).not.toContain(thinking);
    expect(shown.stdout).toContain("Hello!");

    const hidden = await penguin(["run", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "hi"], {
      env,
    });
    expect(hidden.exitCode).toBe(0);
    expect(hidden.stderr).not.toContain("short greeting");
    expect(hidden.stdout).not.toContain("short greeting");
  });
});
