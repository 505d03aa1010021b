import { accessSync, constants, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { stringify } from "yaml";
import { AcpChild } from "./acp-client.js";
import { readJsonLines, tempDir, traceFiles } from "./helpers.js";

// `penguin acp --profile`: the execution profile of the sessions the editor starts.

const BWRAP_MISSING = !(process.env.PATH ?? "").split(":").some((dir) => {
  try {
    accessSync(join(dir, "bwrap"), constants.X_OK);
    return true;
  } catch {
    return false;
  }
});

let running: AcpChild | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** A HOME holding a secret, a data root, and a cassette whose one command cats the secret. */
function setup(profile: string) {
  const home = tempDir("home");
  const secret = join(home, "secret.txt");
  writeFileSync(secret, "host secret\n");
  const cassette = join(tempDir("cassette"), "cat.yaml");
  const call = {
    id: "c1",
    name: "exec_command",
    arguments: { description: "read", cmd: `cat ${secret} || echo $((6 * 7))-unreadable` },
  };
  writeFileSync(cassette, stringify({ version: 1, turns: [{ tool_calls: [call] }, { text: "done" }] }));
  const dataRoot = tempDir("data");
  running = new AcpChild(["--model", `replay:${cassette}`, "--approve", "allow-all", "--profile", profile], {
    HOME: home,
    PENGUIN_HOME: dataRoot,
  });
  return { acp: running, dataRoot };
}

describe("penguin acp --profile", () => {
  test.skipIf(BWRAP_MISSING)("sandbox: the editor's sessions run their commands in the sandbox", async () => {
    const { acp, dataRoot } = setup("sandbox");
    await acp.initialize();
    const workspace = tempDir("ws");
    const { sessionId } = await acp.agent.request("session/new", { cwd: workspace, mcpServers: [] });
    const result = await acp.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "read it" }],
    });
    expect(result.stopReason).toBe("end_turn");
    const shown = JSON.stringify(acp.updatesOf(sessionId));
    // "42-unreadable" is what the shell printed (the command itself only holds the arithmetic).
    expect(shown).toContain("42-unreadable");
    expect(shown).not.toContain("host secret");
    const [trace] = traceFiles(dataRoot);
    expect(readJsonLines(trace!)[0]?.payload.execution_profile).toBe("sandbox");
  });

  test("an unknown profile: session/new is answered with the reason", async () => {
    const { acp } = setup("no-such-profile");
    await acp.initialize();
    await expect(acp.agent.request("session/new", { cwd: tempDir("ws"), mcpServers: [] })).rejects.toThrow(
      /no-such-profile/,
    );
  });
});
