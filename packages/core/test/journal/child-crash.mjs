// A real process that runs one SDK session task and kills itself with SIGKILL at a chosen step of
// its trace: `after-effect` right after a tool_effect record is written (the tool has not changed
// anything yet), `before-output` right before a tool_call_output record is written (the tool has
// done its work; its result never reaches the trace). It watches the trace's own writes, so the
// kill lands at that step every time. It prints its session id, then every message as JSON.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

const [dataRoot, workspaceDir, model, prompt, killAt, configJson] = process.argv.slice(2);

const writeSync = fs.writeSync;
const die = () => {
  process.kill(process.pid, "SIGKILL");
  for (;;) {}
};
fs.writeSync = (fd, data, ...rest) => {
  const text =
    typeof data === "string"
      ? data
      : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("utf8");
  if (killAt === "before-output" && text.includes('"type":"tool_call_output"')) die();
  const written = writeSync(fd, data, ...rest);
  if (killAt === "after-effect" && text.includes('"type":"tool_effect"')) die();
  return written;
};
syncBuiltinESMExports();

const { allowAll, createAgent } = await import("../../dist/index.js");
const agent = await createAgent({ dataRoot, config: JSON.parse(configJson), logger: { warn: () => {} } });
const session = await agent.createSession({ workspaceDir, model, retry: { baseDelayMs: 1, maxDelayMs: 4 } });
process.stdout.write(`${JSON.stringify({ session_id: session.id })}\n`);
for await (const message of session.run(prompt, { approve: allowAll })) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}
await session.dispose();
