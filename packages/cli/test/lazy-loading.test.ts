import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { startFakeLlm } from "@penguin/fake-llm";
import { presetToolDefinitions } from "@penguin/state";
import { execa } from "execa";
import { describe, expect, test } from "vitest";
import { stringify } from "yaml";
import { CLI_BIN, REPO_ROOT, tempDir, withLoadLog } from "./helpers.js";
import { loadedChunkSources, loadedPackages } from "./loaded-packages.js";
import { writeParentSession } from "./trace-fixtures.js";

// "Aim for start-up that a user does not notice (lazy-load what a command does not need)": the
// provider SDKs and the MCP SDK each take hundreds of milliseconds to import, so `penguin run`
// loads the one provider SDK its model speaks, and the MCP SDK only for an agent with MCP servers.
// Packages are named, not paths: some are inlined into the CLI's chunks (see loaded-packages.ts).

const OPENAI_SDK = "openai";
const ANTHROPIC_SDK = "@anthropic-ai/sdk";
const MCP_SDK = "@modelcontextprotocol/sdk";
/** The Agent Client Protocol SDK: `penguin acp` only. */
const ACP_SDK = "@agentclientprotocol/sdk";
/**
 * Loaded only when their first use comes: a tool call whose schema is not built in (ajv's
 * compiler), an edit (diff), a log file (pino), a PDF, the model's text on a terminal (marked: a
 * pipe gets the text as written).
 */
const ON_FIRST_USE = ["ajv", "diff", "pino", "pdfjs-dist", "html-to-text", "@penguin/server", "marked"];
const CASSETTE = join(REPO_ROOT, "examples/quickstart.cassette.yaml");
const HIDE_PACKAGES = join(import.meta.dirname, "fixtures/hide-packages.mjs");
/** How the load log (fixtures/record-loads.mjs) names Node's own `fetch` (undici) once it has loaded. */
const NODE_FETCH_MODULE = "node:internal/deps/undici/undici";

/** The files of ajv's compiler (anything of ajv but its runtime helpers) in a load log, as `ajv/dist/…`. */
function ajvCompilerFiles(loads: string): string[] {
  const files = [...loads.matchAll(/node_modules\/ajv\/(dist\/[^\s]+)/g)].map((match) => `ajv/${match[1]}`);
  return [...new Set(files)].filter((file) => !file.startsWith("ajv/dist/runtime/"));
}

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

describe("penguin --version and --help load no part of the SDK", () => {
  for (const flag of ["--version", "--help"]) {
    test(`penguin ${flag} prints the build's text and loads no package, not even commander`, async () => {
      const run = withLoadLog([flag], { PENGUIN_HOME: tempDir("data") });
      const r = await run.child;
      expect(r.exitCode).toBe(0);
      expect(r.stdout.length).toBeGreaterThan(0);
      // The same log names commander and the SDKs for the commands that load them (below).
      expect([...loadedPackages(run.loads())]).toEqual([]);
    });
  }
});

describe("penguin run loads only the SDKs its session uses", () => {
  test("a replay run loads neither provider SDK nor the MCP SDK", async () => {
    const run = replayRun(tempDir("data"));
    const r = await run.child;
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("fib");
    expect(run.loads()).toContain("dist/bin.cjs");
    const loads = loadedPackages(run.loads());
    expect(loads).toContain("@penguin/core");
    expect(loads).not.toContain(OPENAI_SDK);
    expect(loads).not.toContain(ANTHROPIC_SDK);
    expect(loads).not.toContain(MCP_SDK);
    // The version is a constant of the build (src/version.ts): no start reads the CLI's package.json.
    expect(run.loads()).not.toContain(pathToFileURL(join(REPO_ROOT, "packages/cli/package.json")).href);
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
      const loads = loadedPackages(run.loads());
      expect(loads).toContain(OPENAI_SDK);
      expect(loads).not.toContain(ANTHROPIC_SDK);
      expect(loads).not.toContain(MCP_SDK);
      expect(loads).not.toContain(ACP_SDK);
      // The first request needs none of these: no tool was called, nothing edited or logged.
      for (const name of ON_FIRST_USE) expect(loads, name).not.toContain(name);
      // The SDK's request goes through Penguin's fetch over node:http, and the bundle gives the SDK
      // Penguin's Headers (tsup.config.ts, sdkWebGlobals): nothing of Node's fetch is loaded.
      expect(run.loads()).not.toContain(NODE_FETCH_MODULE);
      // zod's messages come in English only: its other 48 locales are not compiled at each start.
      const locales = loadedChunkSources(run.loads())
        .map((source) => /zod\/v4\/locales\/([^/]+)\.js$/.exec(source)?.[1])
        .filter((locale) => locale !== undefined && locale !== "index");
      expect(locales).toEqual(["en"]);
    } finally {
      await llm.close();
    }
  });

  /** A run whose model calls exec_command once; `dataRoot` holds the agent. */
  async function runOneToolCall(dataRoot: string) {
    const apiKey = "sk-test-lazy-0123456789abcdef";
    const llm = await startFakeLlm({
      apiKey,
      script: [
        { tool_calls: [{ name: "exec_command", arguments: { description: "say hi", cmd: "echo hi" } }] },
        { text: "Said hi." },
      ],
    });
    try {
      const run = withLoadLog(["run", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "hi"], {
        PENGUIN_HOME: dataRoot,
        OPENAI_API_KEY: apiKey,
        OPENAI_BASE_URL: `${llm.url}/v1`,
      });
      const r = await run.child;
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain("Said hi.");
      // The call ran: its output went back to the model.
      expect(JSON.stringify(llm.requests.at(-1))).toContain("hi\\n");
      return run.loads();
    } finally {
      await llm.close();
    }
  }

  test("a built-in tool's first call loads nothing of ajv: its validator is precompiled", async () => {
    const loads = await runOneToolCall(tempDir("data"));
    expect(loads).toMatch(/precompiled-validators\.generated-[^/]*\.js/);
    expect(ajvCompilerFiles(loads)).toEqual([]);
    // Not even a runtime helper: the one the built-in schemas need has a copy of its own.
    expect(loads).not.toMatch(/node_modules\/ajv\//);
    expect(loadedPackages(loads)).not.toContain("ajv");
  });

  test("a tool whose schema the agent's configuration changed is compiled by ajv on its first call", async () => {
    const dataRoot = tempDir("data");
    mkdirSync(join(dataRoot, "agents", "default"), { recursive: true });
    const execCommand = presetToolDefinitions("core").find((tool) => tool.name === "exec_command");
    if (execCommand === undefined) throw new Error("exec_command is missing from the core preset");
    execCommand.parameters = { ...execCommand.parameters, $comment: "edited by the user" };
    writeFileSync(
      join(dataRoot, "agents", "default", "system_config.yaml"),
      stringify({ tools: { builtin: [execCommand] } }),
    );
    const loads = await runOneToolCall(dataRoot);
    expect(ajvCompilerFiles(loads)).toContain("ajv/dist/2020.js");
    expect(loadedPackages(loads)).toContain("ajv");
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
    const loads = loadedPackages(run.loads());
    expect(loads).toContain(MCP_SDK);
    expect(loads).not.toContain(OPENAI_SDK);
    expect(loads).not.toContain(ANTHROPIC_SDK);
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

describe("a bad value in an agent's config", () => {
  test("is reported in English, naming the file, the line and the field", async () => {
    const dataRoot = tempDir("data");
    mkdirSync(join(dataRoot, "agents", "default"), { recursive: true });
    writeFileSync(
      join(dataRoot, "agents", "default", "system_config.yaml"),
      stringify({ tools: { limits: { jobs: { maxJobs: "many" } } } }),
    );
    const r = await execa(process.execPath, [CLI_BIN, "run", "--model", "openai/x", "-m", "hi"], {
      env: { NO_COLOR: "1", PENGUIN_HOME: dataRoot },
      extendEnv: true,
      reject: false,
      timeout: 60_000,
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /system_config\.yaml:4:\d+: tools\.limits\.jobs\.maxJobs: expected number, received string/,
    );
  });
});

describe("penguin sessions show loads the SDK only to check what a crash left", () => {
  test("a session that ended cleanly is shown without loading @penguin/core", async () => {
    const dataRoot = tempDir("data");
    writeParentSession(dataRoot, "clean-1", { scratchpad: true });
    const run = withLoadLog(["sessions", "show", "clean-1"], { PENGUIN_HOME: dataRoot });
    const r = await run.child;
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("clean-1");
    const loads = loadedPackages(run.loads());
    expect(loads).toContain("@penguin/trace");
    expect(loads).not.toContain("@penguin/core");
  });
});
