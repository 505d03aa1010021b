import { createInterface } from "node:readline";
import { CTRL_C } from "../prompts/approval-prompt.js";

/**
 * Asks one line on the terminal (stdin in raw mode while it waits). Ctrl-C gives `CTRL_C`; an
 * aborted signal (the task was interrupted elsewhere) closes the question and gives "".
 */
export function askLineOnce(
  prompt: string,
  signal?: AbortSignal,
  streams: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream } = {
    input: process.stdin,
    output: process.stderr,
  },
): Promise<string | typeof CTRL_C> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: streams.input, output: streams.output, terminal: true });
    let settled = false;
    const settle = (value: string | typeof CTRL_C) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      rl.close();
      resolve(value);
    };
    const onAbort = () => {
      streams.output.write("\n");
      settle("");
    };
    if (signal?.aborted) return settle("");
    signal?.addEventListener("abort", onAbort, { once: true });
    rl.on("SIGINT", () => {
      streams.output.write("^C\n");
      settle(CTRL_C);
    });
    rl.on("close", () => settle(""));
    rl.question(prompt, (answer) => settle(answer));
  });
}
