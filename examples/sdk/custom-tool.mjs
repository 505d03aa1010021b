// Registers a custom tool in code and runs one session on a replay cassette (no network, no key).
//
//   node examples/sdk/custom-tool.mjs      (with @penguin/core installed or linked)
//
// The custom tool runs under the same contract as the built-ins: its arguments are validated
// against its JSON Schema, approval decides each call, and the trace records everything.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { allowAll, createAgent, partialToolCallOutput } from "@penguin/core";

const here = dirname(fileURLToPath(import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "penguin-example-"));

const wordCount = {
  name: "word_count",
  definition: {
    description: "Counts the words of a text.",
    parameters: {
      type: "object",
      properties: { text: { type: "string", description: "The text to count." } },
      required: ["text"],
      additionalProperties: false,
    },
    permission: "r",
  },
  async *execute(args, ctx) {
    const words = args.text.split(/\s+/).filter(Boolean).length;
    yield partialToolCallOutput("delta", ctx.toolCallId, `${words} words`);
  },
};

const agent = await createAgent({ dataRoot: join(scratch, "data"), tools: [wordCount] });
const session = await agent.createSession({
  workspaceDir: scratch,
  model: `replay:${join(here, "custom-tool.cassette.yaml")}`,
});

for await (const message of session.run("How many words are in 'the quick brown fox'?", {
  approve: allowAll,
})) {
  const p = message.payload;
  if (p.type === "tool_call") console.log(`tool call: ${p.name} ${p.arguments}`);
  if (p.type === "approval_decision") console.log(`approval: ${p.decision}`);
  if (p.type === "tool_call_output") console.log(`tool output: ${p.output}`);
  if (p.type === "text" && p.role === "assistant") console.log(`assistant: ${p.text}`);
  if (p.type === "task_end") console.log(`task end: ${p.status}`);
}
await session.dispose();
console.log(`trace: ${session.tracePath}`);
