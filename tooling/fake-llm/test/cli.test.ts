import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import OpenAI from "openai";
import { afterAll, afterEach, describe, expect, it } from "vitest";

/** bin.mjs imports ./dist, which turbo builds before the test task runs. */
const BIN = join(dirname(fileURLToPath(import.meta.url)), "..", "bin.mjs");
const dir = mkdtempSync(join(tmpdir(), "fake-llm-cli-"));
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  const exited = once(child, "exit").then(([code]) => code as number | null);
  return { child, exited, stderr: () => stderr };
}

async function firstLine(child: ChildProcess): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) return line;
  throw new Error("the CLI exited without printing a line");
}

describe("fake-llm CLI", () => {
  it("prints its URL, serves the YAML script and exits cleanly on SIGTERM", async () => {
    const script = join(dir, "script.yaml");
    writeFileSync(script, "turns:\n  - text: served by the CLI\n");
    const { child, exited, stderr } = run(["--script", script, "--port", "0", "--host", "127.0.0.1"]);
    const line = await firstLine(child);
    const match = /^fake-llm listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
    expect(match, line).not.toBeNull();
    const client = new OpenAI({ baseURL: `${match![1]}/v1`, apiKey: "k", maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "q" }],
    });
    expect(completion.choices[0]!.message.content).toBe("served by the CLI");
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(stderr()).toContain("POST /v1/chat/completions -> answered (turn 0)");
  });

  it("exits 1 naming the file and field of an invalid script", async () => {
    const script = join(dir, "bad.yaml");
    writeFileSync(script, "turns:\n  - chunk_size: -1\n    text: x\n");
    const { exited, stderr } = run(["--script", script]);
    expect(await exited).toBe(1);
    expect(stderr()).toContain(script);
    expect(stderr()).toContain("turns.0.chunk_size");
  });

  it("exits 2 with usage when --script is missing", async () => {
    const { exited, stderr } = run([]);
    expect(await exited).toBe(2);
    expect(stderr()).toMatch(/--script is required\nusage: fake-llm/);
  });
});
