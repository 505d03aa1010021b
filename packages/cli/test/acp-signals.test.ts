import { afterEach, expect, test } from "vitest";
import { AcpChild } from "./acp-client.js";
import { fakeOpenAiPerTest, tempDir } from "./helpers.js";
import { processesRunning } from "./pty.js";

// "When the editor closes stdin (or ends the process with SIGTERM), every session is disposed and
// its running commands are ended."

const API_KEY = "sk-test-penguin-acp-signals-0123456789";
/** A duration no other process on the machine uses, so the leftover check finds only ours. */
const SLEEP_SECONDS = "31.5432";
const serve = fakeOpenAiPerTest(API_KEY);
let running: AcpChild | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test("SIGTERM while a command runs: the process exits and leaves no command behind", async () => {
  const workspace = tempDir("ws");
  const { env } = await serve([
    {
      tool_calls: [
        { name: "exec_command", arguments: { description: "Wait", cmd: `sleep ${SLEEP_SECONDS}` } },
      ],
    },
    { text: "never" },
  ]);
  const acp = new AcpChild(["--model", "openai/fake-model", "--approve", "allow-all"], {
    ...env,
    HOME: tempDir("home"),
  });
  running = acp;
  await acp.initialize();
  const { sessionId } = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
  const prompt = acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "wait" }] });
  prompt.catch(() => {});
  await until(
    async () => (await processesRunning("sleep", SLEEP_SECONDS)).length > 0,
    "the command to start",
  );

  const exited = new Promise<number | null>((resolve) => acp.child.once("exit", (code) => resolve(code)));
  acp.child.kill("SIGTERM");
  expect(await exited).toBe(0);
  // Ended before the process exited, not later by chance.
  expect(await processesRunning("sleep", SLEEP_SECONDS)).toEqual([]);
  expect(acp.nonProtocolLines()).toEqual([]);
});
