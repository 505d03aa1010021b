import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeLlm } from "@penguin/fake-llm";
import { execa } from "execa";
import { describe, expect, test } from "vitest";
import { stringify } from "yaml";
import { CLI_BIN, REPO_ROOT, tempDir, withLoadLog } from "./helpers.js";

// "Aim for start-up that a user does not notice (lazy-load what a command does not need)": the
// provider SDKs and the MCP SDK each take hundreds of milliseconds to import, so `penguin run`
// loads the one provider SDK its model speaks, and the MCP SDK only for an agent with MCP servers.

const OPENAI_SDK = /\/node_modules\/openai\//;
const ANTHROPIC_SDK = /\/node_modules\/@anthropic-ai\/sdk\//;
const MCP_SDK = /\/node_modules\/@modelcontextprotocol\/sdk\//;
const CASSETTE = join(REPO_ROOT, "examples/quickstart.cassette.yaml");
const HIDE_PACKAGES = join(import.meta.dirname, "fixtures/hide-packages.mjs");

/** A data root whose default agent has one MCP server, whose program does not exist. */
function dataRootWithMcpServer(): string {
  const dataRoot = tempDir("data");
  mkdirSync(join(dataRoot, "agents", "default"), { recursive: true });
  writeFileSync(
    join(dataRoot, "agents", "default", "system_config.yaml"),
    stringify({
      tools: {
        mcpServers: [
          { name: "missing", config: { transport: "stdio", command: "penguin-test-no-such-mcp-server" } },
        ],
      },
    }),
  );
  return dataRoot;
}

function replayRun(dataRoot: string) {
  return withLoadLog(["run", "--model", `replay:${CASSETTE}`, "-w", tempDir("ws"), "-m", "fib"], {
    PENGUIN_HOME: dataRoot,
  });
}

describe("penguin run loads only the SDKs its session uses", () => {
  test("a replay run loads neither provider SDK nor the MCP SDK", async () => {
    const run = replayRun(tempDir("data"));
    const r = await run.child;
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("fib");
    const loads = run.loads();
    expect(loads).toContain("dist/bin.js");
    expect(loads).not.toMatch(OPENAI_SDK);
    expect(loads).not.toMatch(ANTHROPIC_SDK);
    expect(loads).not.toMatch(MCP_SDK);
  });

  test("a run against an OpenAI-compatible server loads openai, not @anthropic-ai/sdk nor the MCP SDK", async () => {
    const apiKey = "sk-test-lazy-0123456789abcdef";
    const llm = await startFakeLlm({ apiKey, script: [{ text: "Hello from the fake model." }] });
    try {
      const run = withLoadLog(["run", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "hi"], {
        PENGUIN_HOME: tempDir("data"),
        OPENAI_API_KEY: apiKey,
        OPENAI_BASE_URL: `${llm.url}/v1`,
      });
      const r = await run.child;
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain("Hello from the fake model.");
      expect(llm.requests).toHaveLength(1);
      const loads = run.loads();
      expect(loads).toMatch(OPENAI_SDK);
      expect(loads).not.toMatch(ANTHROPIC_SDK);
      expect(loads).not.toMatch(MCP_SDK);
    } finally {
      await llm.close();
    }
  });

  test("an agent with MCP servers loads the MCP SDK when its session connects to them", async () => {
    const dataRoot = dataRootWithMcpServer();
    const run = replayRun(dataRoot);
    const r = await run.child;
    // The server cannot start: the session warns and goes on without its tools.
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain(
      'MCP server "missing" skipped: cannot start "penguin-test-no-such-mcp-server"',
    );
    const loads = run.loads();
    expect(loads).toMatch(MCP_SDK);
    expect(loads).not.toMatch(OPENAI_SDK);
    expect(loads).not.toMatch(ANTHROPIC_SDK);
  });

  test("an install without the MCP SDK skips the agent's MCP servers with a warning; the run goes on", async () => {
    const r = await execa(
      process.execPath,
      [
        "--import",
        HIDE_PACKAGES,
        CLI_BIN,
        "run",
        "--model",
        `replay:${CASSETTE}`,
        "-w",
        tempDir("ws"),
        "-m",
        "fib",
      ],
      {
        env: {
          NO_COLOR: "1",
          PENGUIN_HOME: dataRootWithMcpServer(),
          PENGUIN_TEST_HIDE: "@modelcontextprotocol/sdk",
        },
        extendEnv: true,
        reject: false,
        timeout: 60_000,
      },
    );
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(
      /MCP server "missing" skipped: cannot load the MCP SDK \(Cannot find package '@modelcontextprotocol\/sdk\/.*hidden by the test\)\); reinstall Penguin/,
    );
    expect(r.stdout).toContain("fib");
  });
});
