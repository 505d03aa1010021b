import type { FakeLlm } from "@penguin/fake-llm";
import { runProcess } from "./processes.js";

/** A start that has made no request by then is broken, not slow. */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Milliseconds from spawning `penguin run` (`args` to Node) to fake-llm recording its request;
 * the process is then left to finish (its answer is one short text) and must exit 0.
 */
export async function runToFirstRequest(
  llm: FakeLlm,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<number> {
  llm.setScript([{ text: "Hi." }]);
  const seen = llm.requests.length;
  const start = process.hrtime.bigint();
  const exit = runProcess(process.execPath, args, { env, stdout: "discard" });
  await llm.waitForRequests(seen + 1, { timeoutMs: REQUEST_TIMEOUT_MS });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const result = await exit;
  if (result.code !== 0) throw new Error(`penguin run exited with ${result.code}: ${result.stderr.trim()}`);
  return ms;
}
