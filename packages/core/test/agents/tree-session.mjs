// A real process that runs one SDK session task with the extended toolset (launch_agent and the
// messaging tools) against the model the data root's project config names, printing its session
// id as one JSON line first. The agent-tree resume test kills it with SIGKILL mid-task. It imports
// the built package, as a user's program would.
import { allowAll, createAgent } from "../../dist/index.js";

const [dataRoot, workspaceDir, model, prompt] = process.argv.slice(2);
const agent = await createAgent({
  dataRoot,
  logger: { warn: () => {} },
  config: { tools: { preset: "extended" } },
});
const session = await agent.createSession({ workspaceDir, model, retry: { baseDelayMs: 1, maxDelayMs: 4 } });
process.stdout.write(`${JSON.stringify({ session_id: session.id })}\n`);
for await (const _message of session.run(prompt, { approve: allowAll })) {
  // Drained: the trace is what the test reads.
}
await session.dispose();
