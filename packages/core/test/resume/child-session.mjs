// A real process that runs one SDK session task against the model the data root's project config
// names, printing its session id and then every message as one JSON line. The resume tests kill
// it with SIGKILL at chosen points. It imports the built package, as a user's program would.
import { allowAll, createAgent } from "../../dist/index.js";

// An optional fifth argument is the agent's configuration in code, as JSON (e.g. the extended preset).
const [dataRoot, workspaceDir, model, prompt, config] = process.argv.slice(2);
const agent = await createAgent({
  dataRoot,
  logger: { warn: () => {} },
  ...(config ? { config: JSON.parse(config) } : {}),
});
const session = await agent.createSession({ workspaceDir, model, retry: { baseDelayMs: 1, maxDelayMs: 4 } });
process.stdout.write(`${JSON.stringify({ session_id: session.id })}\n`);
for await (const message of session.run(prompt, { approve: allowAll })) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}
await session.dispose();
