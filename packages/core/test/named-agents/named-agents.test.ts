import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentNamedAgentsDir, workspaceNamedAgentsDir } from "@penguin/state";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { chatMessages, collect, payloadsOf, type Stack, stack, toolMessage } from "../hooks/support.js";
import { RETRY_FAST } from "../sdk/fixtures.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";

// Named agents: `<name>.md` files of the agent's state folder (`<dataRoot>/agents/<id>/agents/`)
// and, when the user opted in with hooks.allow_workspace_hooks, of the workspace
// (`<workspace>/.agents/agents/`) and of the directories change_directory enters. The session
// keeps them in `session.agents`, and the system prompt lists them by name and description.

const start = cleanedUpAfterEach(stack);

const OPTED_IN = { tools: { preset: "extended" as const }, hooks: { allow_workspace_hooks: true } };
const NOT_OPTED_IN = { tools: { preset: "extended" as const } };

function agentFile(dir: string, name: string, text: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.md`);
  writeFileSync(file, text);
  return file;
}

const definition = (name: string, description: string, body = `You are ${name}.`) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;

const systemPromptOf = (env: Stack, n = 0) => String(chatMessages(env.llm, n)[0]?.content ?? "");
const requestBytes = (env: Stack, n: number) => env.llm.requests[n]?.rawBody.length ?? -1;

async function runOnce(env: Stack) {
  const session = await env.session();
  const messages = await collect(session.run("Go.", { approve: allowAll }));
  await session.dispose();
  return { session, messages };
}

describe("named agents", () => {
  it("load from the agent's folder and (opted in) the workspace, listed in the prompt and kept by the session", async () => {
    const env = await start([{ text: "done" }], OPTED_IN);
    const own = agentFile(
      agentNamedAgentsDir(env.dataRoot, "default"),
      "reviewer",
      definition("reviewer", "Reviews a change for bugs.", "Read the diff.\nReport bugs only."),
    );
    agentFile(workspaceNamedAgentsDir(env.workspaceDir), "tester", definition("tester", "Runs the tests."));
    const shadow = agentFile(
      workspaceNamedAgentsDir(env.workspaceDir),
      "reviewer",
      definition("reviewer", "A workspace reviewer."),
    );
    const { session, messages } = await runOnce(env);

    expect(session.agents.list().map((agent) => [agent.name, agent.source])).toEqual([
      ["reviewer", "agent"],
      ["tester", "workspace"],
    ]);
    expect(session.agents.get("reviewer")).toMatchObject({
      file: own,
      instructions: "Read the diff.\nReport bugs only.",
    });
    const prompt = systemPromptOf(env);
    expect(prompt).toContain(
      "# Named agents\nAgents defined for this workspace, each with its own instructions (this session has no tool that starts them):\n- reviewer: Reviews a change for bugs.\n- tester: Runs the tests.\n",
    );
    // Names and descriptions only: the instructions are not paid for on every request.
    expect(prompt).not.toContain("Read the diff.");
    // The agent's own definition wins a name clash, and the one left out is said so.
    expect(payloadsOf(messages, "warning")).toEqual([
      {
        type: "warning",
        source: "agents",
        file: shadow,
        message: `named agent skipped: ${shadow}: the name "reviewer" is taken by ${own}`,
      },
    ]);
  });

  it("leave the workspace's out unless the user opted in, with a warning saying how to opt in", async () => {
    const env = await start([{ text: "done" }], NOT_OPTED_IN);
    agentFile(agentNamedAgentsDir(env.dataRoot, "default"), "reviewer", definition("reviewer", "Reviews."));
    agentFile(workspaceNamedAgentsDir(env.workspaceDir), "tester", definition("tester", "Runs the tests."));
    const { session, messages } = await runOnce(env);

    expect(session.agents.list().map((agent) => agent.name)).toEqual(["reviewer"]);
    expect(systemPromptOf(env)).not.toContain("tester");
    const folder = workspaceNamedAgentsDir(env.workspaceDir);
    expect(payloadsOf(messages, "warning")).toEqual([
      {
        type: "warning",
        source: "agents",
        file: folder,
        message: `${folder} is ignored: workspace named agents load only with hooks.allow_workspace_hooks: true in the agent's system_config.yaml`,
      },
    ]);
  });

  it("skip each invalid file with a warning naming it, and the session still runs", async () => {
    const env = await start([{ text: "done" }], OPTED_IN);
    const dir = workspaceNamedAgentsDir(env.workspaceDir);
    const badYaml = agentFile(dir, "a-bad-yaml", "---\nname: [a-bad-yaml\ndescription: x\n---\nBody\n");
    const noDescription = agentFile(dir, "b-no-description", "---\nname: b-no-description\n---\nBody\n");
    const wrongName = agentFile(dir, "c-wrong-name", definition("someone-else", "Mismatched."));
    agentFile(dir, "d-good", definition("d-good", "The one that works."));
    const { session, messages } = await runOnce(env);

    expect(session.agents.list().map((agent) => agent.name)).toEqual(["d-good"]);
    const warnings = payloadsOf(messages, "warning");
    expect(warnings.map((warning) => [warning.source, warning.file])).toEqual([
      ["agents", badYaml],
      ["agents", noDescription],
      ["agents", wrongName],
    ]);
    expect(String(warnings[0]?.message)).toContain("the front matter is not valid YAML");
    expect(String(warnings[1]?.message)).toContain("description is missing");
    expect(String(warnings[2]?.message)).toContain(
      'name is "someone-else" but the file is c-wrong-name.md: a named agent\'s name must equal its file name',
    );
    expect(payloadsOf(messages, "task_end")).toHaveLength(1);
    expect(systemPromptOf(env)).toContain("- d-good: The one that works.");
  });

  it("leave the request unchanged when there are none", async () => {
    const env = await start([{ text: "first" }, { text: "second" }], NOT_OPTED_IN);
    await runOnce(env);
    // Ignored (not opted in) and invalid files add nothing to what the model is sent.
    agentFile(workspaceNamedAgentsDir(env.workspaceDir), "tester", definition("tester", "Runs the tests."));
    agentFile(agentNamedAgentsDir(env.dataRoot, "default"), "broken", "---\nname: broken\n---\nBody\n");
    await runOnce(env);

    expect(systemPromptOf(env, 0)).not.toContain("Named agents");
    expect(systemPromptOf(env, 1)).toBe(systemPromptOf(env, 0));
    expect(requestBytes(env, 1)).toBe(requestBytes(env, 0));
  });

  it("are picked up by change_directory from the directory it enters, and kept on resume", async () => {
    const cd = { id: "cd1", name: "change_directory", arguments: { path: "pkg" } };
    const env = await start([{ tool_calls: [cd] }, { text: "moved" }, { text: "resumed" }], OPTED_IN);
    const pkg = join(env.workspaceDir, "pkg");
    const packager = agentFile(
      workspaceNamedAgentsDir(pkg),
      "packager",
      definition("packager", "Builds the package."),
    );
    const broken = agentFile(workspaceNamedAgentsDir(pkg), "broken", "---\nname: broken\n---\nBody\n");
    const session = await env.session();
    await collect(session.run("Go to pkg.", { approve: allowAll }));

    expect(session.agents.get("packager")?.file).toBe(packager);
    const output = toolMessage(env, 1, "cd1");
    expect(output).toContain("# Named agents here\n- packager: Builds the package.\n");
    expect(output).toContain(`- named agent skipped: ${broken}: description is missing`);
    await session.dispose();

    // A resumed session goes back to pkg with the agents loaded on the way.
    const resumed = await env.agent.resumeSession(session.id, { retry: RETRY_FAST });
    expect(resumed.agents.get("packager")?.file).toBe(packager);
    await resumed.dispose();
  });

  it("of a directory change_directory enters are not loaded unless the user opted in", async () => {
    const cd = { id: "cd1", name: "change_directory", arguments: { path: "pkg" } };
    const env = await start([{ tool_calls: [cd] }, { text: "moved" }], NOT_OPTED_IN);
    const pkg = join(env.workspaceDir, "pkg");
    agentFile(workspaceNamedAgentsDir(pkg), "packager", definition("packager", "Builds the package."));
    const { session } = await runOnce(env);

    expect(session.agents.get("packager")).toBeUndefined();
    expect(toolMessage(env, 1, "cd1")).toContain(
      `# Named agents here\n- ${workspaceNamedAgentsDir(pkg)} is ignored: workspace named agents load only with hooks.allow_workspace_hooks: true`,
    );
  });
});
