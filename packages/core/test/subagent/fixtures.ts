import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeLlm, type FakeLlmScript, startFakeLlm } from "@penguin/fake-llm";
import type { OmniMessage } from "@penguin/protocol";
import { type SystemConfigInput, saveProjectConfig } from "@penguin/state";
import { ProjectConfigSchema } from "@penguin/state/schemas";
import { findSessionFiles } from "@penguin/trace";
import { createAgent } from "../../src/sdk/agent.js";

/** The parent's model (and the child's, unless run_subagent picks another). */
export const MODEL = "fake/fake-model";
/** A second provider on a second fake-llm server: a child asked for it talks to `llm2`. */
export const CHILD_PROVIDER = "fake2";
export const CHILD_MODEL_ID = "child-model";

export interface SetupOptions {
  /** The script of the second server (children that run_subagent points at fake2/child-model). */
  childScript?: FakeLlmScript;
  /** The agent's system_config (in code). */
  config?: SystemConfigInput;
  contextWindow?: number;
}

/**
 * A real data root and workspace in a temp folder, and fake-llm over HTTP: `llm` serves MODEL,
 * `llm2` serves fake2/child-model.
 */
export async function setup(script: FakeLlmScript, options: SetupOptions = {}) {
  const root = mkdtempSync(join(tmpdir(), "penguin-subagent-"));
  const dataRoot = join(root, "data");
  const workspaceDir = join(root, "workspace");
  mkdirSync(workspaceDir, { recursive: true });
  const llm: FakeLlm = await startFakeLlm({ script, apiKey: "sk-test" });
  const llm2: FakeLlm = await startFakeLlm({ script: options.childScript ?? [], apiKey: "sk-test" });
  const contextWindow = options.contextWindow ?? 1_000_000;
  await saveProjectConfig(
    dataRoot,
    ProjectConfigSchema.parse({
      models: [
        {
          provider: "fake",
          api: "openai",
          model_id: "fake-model",
          base_url: `${llm.url}/v1`,
          api_key: "sk-test",
          context_window: contextWindow,
        },
        {
          provider: CHILD_PROVIDER,
          api: "openai",
          model_id: CHILD_MODEL_ID,
          base_url: `${llm2.url}/v1`,
          api_key: "sk-test",
          context_window: contextWindow,
        },
      ],
    }),
  );
  const agent = await createAgent({
    dataRoot,
    logger: { warn: () => {} },
    ...(options.config ? { config: options.config } : {}),
  });
  return {
    root,
    dataRoot,
    workspaceDir,
    llm,
    llm2,
    agent,
    location: { tracesDir: join(dataRoot, "traces"), scratchpadRoot: join(dataRoot, "scratchpad") },
    /** A file the child's `waitFor` command waits for. */
    release(name = "go") {
      writeFlag(join(workspaceDir, name));
    },
    async cleanup() {
      await Promise.all([llm.close(), llm2.close()]);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function writeFlag(path: string) {
  if (!existsSync(path)) mkdirSync(path);
}

export async function collect(iterable: AsyncIterable<OmniMessage>, onMessage?: (m: OmniMessage) => void) {
  const out: OmniMessage[] = [];
  for await (const message of iterable) {
    out.push(message);
    onMessage?.(message);
  }
  return out;
}

export function traceRecords(path: string): OmniMessage[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as OmniMessage);
}

/** The records of a session's trace (all its files). */
export function sessionRecords(location: { tracesDir: string; scratchpadRoot: string }, sessionId: string) {
  return findSessionFiles(location, sessionId).flatMap((file) => traceRecords(file));
}

/** `type` of an envelope's payload (or "session_meta"). */
export const kind = (m: OmniMessage) =>
  m.type === "session_meta" ? "session_meta" : (m.payload as { type: string }).type;

export const RETRY_FAST = { baseDelayMs: 1, maxDelayMs: 4 };

/** The parent's own complete tool outputs (no origin), by tool_call_id. */
export function outputOf(
  messages: OmniMessage[],
  toolCallId: string,
): { output: string; stop_reason?: string } {
  const found = messages.find(
    (m) =>
      m.origin === undefined &&
      kind(m) === "tool_call_output" &&
      (m.payload as { tool_call_id: string }).tool_call_id === toolCallId,
  );
  if (!found) throw new Error(`no tool_call_output for ${toolCallId}`);
  return found.payload as { output: string; stop_reason?: string };
}

export const runSubagent = (id: string, args: Record<string, unknown>) => ({
  id,
  name: "run_subagent",
  arguments: { description: "delegate", ...args },
});

export const inputSubagent = (id: string, args: Record<string, unknown>) => ({
  id,
  name: "input_subagent",
  arguments: { description: "check on it", ...args },
});

export const exec = (id: string, cmd: string) => ({
  id,
  name: "exec_command",
  arguments: { description: "run it", cmd },
});

/** A command that waits until the test creates `<workspace>/<flag>`. */
export const waitFor = (flag = "go") => `until [ -e ${flag} ]; do sleep 0.05; done; echo released-${flag}`;

/** The child model on the second server, as run_subagent arguments. */
export const CHILD_MODEL = { provider: CHILD_PROVIDER, model_id: CHILD_MODEL_ID };
