import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type FakeLlm, type FakeLlmScript, startFakeLlm } from "@penguin/fake-llm";
import { execa } from "execa";
import { afterEach } from "vitest";
import { bundleModulesRun } from "./bundle-coverage.js";
import { BUNDLE_MODULE_PREFIX } from "./loaded-packages.js";

export const CLI_BIN = resolve(import.meta.dirname, "../dist/bin.cjs");
export const REPO_ROOT = resolve(import.meta.dirname, "../../..");
const LOAD_RECORDER = resolve(import.meta.dirname, "fixtures/record-loads.mjs");

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `penguin-cli-${prefix}-`));
}

export interface CliResult {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
}

/** Runs the built `penguin` binary the way a user does: a real process, no TTY. */
export async function penguin(
  args: string[],
  opts: { env?: Record<string, string>; input?: string; cwd?: string } = {},
): Promise<CliResult> {
  const r = await execa(process.execPath, [CLI_BIN, ...args], {
    env: { NO_COLOR: "1", ...opts.env },
    extendEnv: true,
    input: opts.input ?? "",
    cwd: opts.cwd,
    reject: false,
    timeout: 60_000,
  });
  return { exitCode: r.exitCode, stdout: String(r.stdout ?? ""), stderr: String(r.stderr ?? "") };
}

/**
 * Runs the built binary with a loader hook that lists every module it resolves: `loads()` is
 * that list (one URL a line) once the child has ended, followed by the modules of the one-file
 * CLI (`dist/cli.cjs`) the run evaluated, one `bundle:<module path>` a line (see bundle-coverage.ts).
 */
export function withLoadLog(args: string[], env: Record<string, string> = {}) {
  const log = join(tempDir("loads"), "loads.txt");
  const coverage = tempDir("coverage");
  const child = execa(process.execPath, ["--import", LOAD_RECORDER, CLI_BIN, ...args], {
    env: { NO_COLOR: "1", PENGUIN_TEST_LOADS: log, NODE_V8_COVERAGE: coverage, ...env },
    extendEnv: true,
    reject: false,
    timeout: 60_000,
  });
  const loads = () => {
    let urls = "";
    try {
      urls = readFileSync(log, "utf8");
    } catch {
      // The child loaded nothing through the module system.
    }
    const bundled = bundleModulesRun(coverage).map((path) => `${BUNDLE_MODULE_PREFIX}${path}\n`);
    return urls + bundled.join("");
  };
  return { child, loads };
}

/** Every `*.jsonl` trace file under a data root. */
export function traceFiles(dataRoot: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith(".jsonl")) out.push(p);
    }
  };
  walk(join(dataRoot, "traces"));
  return out;
}

export function readJsonLines(file: string): Array<{ type: string; payload: Record<string, unknown> }> {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l));
}

/** `type` of a record: the payload kind for model messages and events, else the envelope type. */
export const kindOf = (r: { type: string; payload: Record<string, unknown> }) =>
  r.type === "session_meta" ? "session_meta" : String(r.payload.type);

/**
 * A fake OpenAI-compatible model per test, closed after it: `start(script)` serves the script
 * and returns the server and the environment that points `openai/…` models at it (with a fresh
 * data root).
 */
export function fakeOpenAiPerTest(apiKey: string) {
  let llm: FakeLlm | undefined;
  afterEach(async () => {
    await llm?.close();
    llm = undefined;
  });
  return async (script: FakeLlmScript) => {
    llm = await startFakeLlm({ apiKey, script });
    const env = { PENGUIN_HOME: tempDir("data"), OPENAI_API_KEY: apiKey, OPENAI_BASE_URL: `${llm.url}/v1` };
    return { llm, env };
  };
}
