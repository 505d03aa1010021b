// A real process that runs one SDK session task with the extended toolset against the model the
// data root's project config names, printing its session id and then every message as one JSON
// line. The execution tests kill it with SIGKILL mid-task. It imports the built package, as a
// user's program would.
import { allowAll, createAgent } from "../../dist/index.js";

const [dataRoot, workspaceDir, model, prompt] = process.argv.slice(2);
const agent = await createAgent({
  dataRoot,
  logger: { warn: () => {} },
  config: { tools: { preset: "extended" } },
});
const session = await agent.createSession({ workspaceDir, model, retry: { baseDelayMs: 1, maxDelayMs: 4 } });
process.stdout.write(`${JSON.stringify({ session_id: session.id })}\n`);
for await (const message of session.run(prompt, { approve: allowAll })) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}
await session.dispose();
