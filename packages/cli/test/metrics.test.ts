import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { penguin, REPO_ROOT, tempDir } from "./helpers.js";

// `penguin metrics` reads a recorded session's trace: a replayed quickstart run (a real session
// whose model answers come from the cassette) is measured like any other.

const CASSETTE = join(REPO_ROOT, "examples/quickstart.cassette.yaml");

async function recordedSession(): Promise<string> {
  const dataRoot = tempDir("data");
  const run = await penguin(["run", "--model", `replay:${CASSETTE}`, "-w", tempDir("ws"), "-m", "fib"], {
    env: { PENGUIN_HOME: dataRoot },
  });
  expect(run.exitCode).toBe(0);
  return dataRoot;
}

describe("penguin metrics", () => {
  test("prints the most recent session's tools and model requests, or JSON rows", async () => {
    const dataRoot = await recordedSession();
    const env = { PENGUIN_HOME: dataRoot };
    const tools = await penguin(["metrics"], { env });
    expect(tools.exitCode).toBe(0);
    const lines = tools.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^session \S+$/);
    expect(lines[1]).toBe("tools, slowest first:");
    expect(lines[2]).toMatch(/^name\s+count\s+total\s+p50\s+p95\s+max\s+errors/);
    expect(lines.length).toBeGreaterThan(3);

    const models = await penguin(["metrics", "--summary", "models", "--json"], { env });
    expect(models.exitCode).toBe(0);
    const rows = models.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { name: string; count: number; tokens?: number });
    expect(rows).toHaveLength(1);
    expect(rows[0]?.name).toMatch(/^replay\//);
    expect(rows[0]?.count).toBeGreaterThan(0);
  });

  test("a summary it does not know, or no session at all, is a usage error", async () => {
    const dataRoot = tempDir("data");
    const bad = await penguin(["metrics", "--summary", "everything"], { env: { PENGUIN_HOME: dataRoot } });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("--summary must be one of tools, models, turns, agents, hooks, sessions");
    const none = await penguin(["metrics"], { env: { PENGUIN_HOME: dataRoot } });
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain("no session has been recorded yet");
    const unknown = await penguin(["metrics", "--session", "nope"], { env: { PENGUIN_HOME: dataRoot } });
    expect(unknown.exitCode).toBe(2);
  });
});
