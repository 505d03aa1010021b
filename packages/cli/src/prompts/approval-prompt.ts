import { createInterface } from "node:readline/promises";
import type { OmniMessage, ToolCallPayload } from "@penguin/protocol";
import { summarizeToolCall } from "../render/tool-call-summary.js";

/**
 * Asks the human at the terminal about one tool call. With no terminal on stdin nobody can
 * answer, so the call is denied, and stderr says why and how to choose a mode instead.
 */
export async function askOnTerminal(call: OmniMessage<ToolCallPayload>): Promise<"allow" | "deny"> {
  const { name, arguments: args } = call.payload;
  if (!process.stdin.isTTY) {
    process.stderr.write(
      `penguin: denied ${name}: it needs approval and stdin is not a terminal; ` +
        "run with --approve allow-all (or deny-all) to decide without a prompt\n",
    );
    return "deny";
  }
  const { title } = summarizeToolCall(name, args);
  process.stderr.write(`\n? ${title}\n  ${name} ${args}\n`);
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await rl.question("  allow? [y/N] ")).trim().toLowerCase();
    return answer === "y" || answer === "yes" ? "allow" : "deny";
  } finally {
    rl.close();
  }
}
