import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FakeLlmScript } from "@penguin/fake-llm";
import { saveProjectConfig } from "@penguin/state";
import { ProjectConfigSchema } from "@penguin/state/schemas";

/** The model reference benchmarks pass to `createSession` (an OpenAI-compatible entry). */
export const FAKE_MODEL = "fake/fake-model";
const API_KEY = "sk-bench";

/** The window the fake model declares unless a benchmark needs a smaller one: nothing fills it. */
const DEFAULT_CONTEXT_WINDOW = 1_000_000;

/** Points the data root's project config at a fake model server (OpenAI Chat Completions). */
export async function useFakeModel(
  dataRoot: string,
  serverUrl: string,
  contextWindow = DEFAULT_CONTEXT_WINDOW,
): Promise<void> {
  await saveProjectConfig(
    dataRoot,
    ProjectConfigSchema.parse({
      models: [
        {
          provider: "fake",
          api: "openai",
          model_id: "fake-model",
          base_url: `${serverUrl}/v1`,
          api_key: API_KEY,
          context_window: contextWindow,
        },
      ],
    }),
  );
}

export interface FakeLlmProcess {
  url: string;
  close(): Promise<void>;
}

const START_TIMEOUT_MS = 20_000;

/** fake-llm's own command-line server (`bin.mjs` beside its `dist/`). */
function fakeLlmBin(): string {
  const entry = fileURLToPath(import.meta.resolve("@penguin/fake-llm"));
  return join(dirname(entry), "..", "bin.mjs");
}

/**
 * fake-llm in a child process, so the harness's CPU figures (process.cpuUsage of this process)
 * do not include the fake server's work of parsing requests and writing the stream.
 */
export async function startFakeLlmProcess(script: FakeLlmScript, scriptDir: string): Promise<FakeLlmProcess> {
  const scriptFile = join(scriptDir, "fake-llm-script.json");
  writeFileSync(scriptFile, JSON.stringify(Array.isArray(script) ? { turns: script } : script));
  const child = spawn(process.execPath, [fakeLlmBin(), "--script", scriptFile], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text: string) => {
    stderr = (stderr + text).slice(-2_000);
  });
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = "";
    const timer = setTimeout(
      () => fail(new Error(`fake-llm did not start within ${START_TIMEOUT_MS} ms`)),
      START_TIMEOUT_MS,
    );
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new Error(`${error.message}; stderr: ${stderr.trim()}`));
    };
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (text: string) => {
      stdout += text;
      const match = /fake-llm listening on (\S+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on("error", fail);
    child.on("exit", (code) => fail(new Error(`fake-llm exited with code ${code} before listening`)));
  });
  child.removeAllListeners("exit");
  return { url, close: () => stopChild(child) };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
