import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { OmniMessage } from "@penguin/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createAgent } from "../../src/sdk/agent.js";
import { SetupError } from "../../src/sdk/setup-error.js";
import { SANDBOX_SKIP_REASON } from "../support/execution-profiles.js";

// Choosing a session's execution profile through the SDK: recorded in session_meta, kept on
// resume, refused with the list of profiles when unknown.

let root: string;
let ws: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "penguin-profile-"));
  ws = join(root, "workspace");
  await mkdir(ws);
  await mkdir(join(root, "home"));
  await writeFile(join(root, "home", "secret.txt"), "host secret\n");
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function agentWith(turns: unknown[], exec: Record<string, unknown> = {}) {
  const cassette = join(root, "cassette.yaml");
  await writeFile(cassette, stringify({ turns }));
  const agent = await createAgent({
    dataRoot: join(root, "data"),
    config: { exec },
    logger: { warn: () => {} },
  });
  return { agent, model: `replay:${cassette}` };
}

async function metaOf(tracePath: string): Promise<Record<string, unknown>> {
  const first = (await readFile(tracePath, "utf8")).split("\n")[0]!;
  return (JSON.parse(first) as OmniMessage).payload as Record<string, unknown>;
}

const catSecret = (id: string) => ({
  tool_calls: [
    {
      id,
      name: "exec_command",
      arguments: { description: "read", cmd: `cat ${join(root, "home", "secret.txt")} || echo hidden` },
    },
  ],
});

describe("createSession({ executionProfile })", () => {
  it("records the agent's default profile, native unless exec.profile says otherwise", async () => {
    const { agent, model } = await agentWith([]);
    const session = await agent.createSession({ workspaceDir: ws, model });
    expect((await metaOf(session.tracePath)).execution_profile).toBe("native");
    await session.dispose();
  });

  it("refuses an unknown profile with a SetupError naming the ones there are", async () => {
    const { agent, model } = await agentWith([], { profiles: { build: { kind: "sandbox", network: true } } });
    const error = await agent
      .createSession({ workspaceDir: ws, model, executionProfile: "jail" })
      .catch((e) => e);
    expect(error).toBeInstanceOf(SetupError);
    expect((error as SetupError).message).toBe(
      'unknown execution profile "jail"; the profiles are: native, sandbox, build',
    );
  });

  it.skipIf(SANDBOX_SKIP_REASON !== undefined)(
    "runs the session's commands in the sandbox, and a resumed session keeps its profile",
    async () => {
      const { agent, model } = await agentWith([
        catSecret("c1"),
        { text: "done" },
        catSecret("c2"),
        { text: "again" },
      ]);
      const session = await agent.createSession({ workspaceDir: ws, model, executionProfile: "sandbox" });
      expect((await metaOf(session.tracePath)).execution_profile).toBe("sandbox");
      const outputs: string[] = [];
      const allow = async () => "allow" as const;
      const collect = async (run: AsyncIterable<OmniMessage>) => {
        for await (const message of run) {
          const payload = message.payload as { type?: string; output?: string };
          if (payload.type === "tool_call_output") outputs.push(payload.output ?? "");
        }
      };
      await collect(session.run("Read the secret.", { approve: allow }));
      await session.dispose();
      const resumed = await agent.resumeSession(session.id);
      await collect(resumed.run("Again.", { approve: allow }));
      await resumed.dispose();
      expect(outputs).toHaveLength(2);
      for (const output of outputs) {
        expect(output).toContain("hidden");
        expect(output).not.toContain("host secret");
      }
    },
  );
});
