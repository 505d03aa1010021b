import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeLlm, startFakeLlm } from "@penguin/fake-llm";
import { afterEach, describe, expect, test } from "vitest";
import { openCliLog } from "../src/logging.js";
import { penguin, tempDir } from "./helpers.js";

/** A key that only the project config holds: no environment variable carries it. */
const PROJECT_KEY = "sk-project-config-only-0123456789abcdef";

describe("the CLI log redacts the project's keys by value", () => {
  let llm: FakeLlm | undefined;
  afterEach(async () => {
    await llm?.close();
  });

  test("a model error that echoes the project config's api_key reaches cli.log redacted", async () => {
    llm = await startFakeLlm({
      apiKey: PROJECT_KEY,
      script: [{ error: { status: 400, message: `the request with key ${PROJECT_KEY} is malformed` } }],
    });
    const dataRoot = tempDir("data");
    mkdirSync(join(dataRoot, "projects", "default"), { recursive: true });
    writeFileSync(
      join(dataRoot, "projects", "default", "project.yaml"),
      [
        "models:",
        "  - provider: openai",
        "    model_id: fake-model",
        `    base_url: ${llm.url}/v1`,
        `    api_key: ${PROJECT_KEY}`,
        "default_model: openai/fake-model",
        "",
      ].join("\n"),
    );
    const r = await penguin(["run", "--verbose", "-w", tempDir("ws"), "-m", "hi"], {
      env: { PENGUIN_HOME: dataRoot, OPENAI_API_KEY: "", PENGUIN_LOG: "" },
    });
    expect(r.exitCode).toBe(1);
    // The model really was asked with the key from the config, and its error came back.
    expect(llm.requests).toHaveLength(1);
    const log = readFileSync(join(dataRoot, "logs", "cli.log"), "utf8");
    expect(log).toContain("the request with key [redacted] is malformed");
    expect(log).not.toContain(PROJECT_KEY);
  });
});

describe("secrets a client hands over while the process runs", () => {
  test("values added with addSecrets are scrubbed from later log records and warnings", async () => {
    const dataRoot = tempDir("data");
    const log = await openCliLog(dataRoot, true, { HOME: tempDir("home") });
    const secret = "editor-header-token-5b7e01";
    log.addSecrets([secret]);
    log.debug({ reason: `server said ${secret}`, count: 2 }, "acp session/new");
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      log.agentLogger.warn(`MCP server "x" skipped: ${secret}`);
    } finally {
      process.stderr.write = write;
    }
    const text = readFileSync(join(dataRoot, "logs", "cli.log"), "utf8");
    expect(text).toContain("server said [redacted]");
    expect(text).toContain('MCP server \\"x\\" skipped: [redacted]');
    expect(text).not.toContain(secret);
    expect(written.join("")).toBe('MCP server "x" skipped: [redacted]\n');
  });
});
