import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentSkillsDir, parseSkillFile, workspaceSkillsDir } from "@penguin/state";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { chatMessages, collect, type Stack, stack, toolMessage } from "../hooks/support.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";

// Skills: SKILL.md folders of the agent (`<dataRoot>/agents/<id>/skills/`) and of the workspace
// (`<workspace>/.agents/skills/`), listed in the system prompt and loaded by use_skill.

const start = cleanedUpAfterEach(stack);

function skill(skillsDir: string, folder: string, text: string): string {
  mkdirSync(join(skillsDir, folder), { recursive: true });
  const file = join(skillsDir, folder, "SKILL.md");
  writeFileSync(file, text);
  return file;
}

const RELEASE = [
  "---",
  "name: release",
  "description: Cut a release of this project (version bump, changelog, tag).",
  "---",
  "# Releasing",
  "1. Run scripts/bump.sh (beside this file).",
  "2. Tag the commit.",
  "",
].join("\n");

const systemPromptOf = (env: Stack, n = 0) => String(chatMessages(env.llm, n)[0]?.content ?? "");
const useSkill = (name: string, id = "s1") => ({ id, name: "use_skill", arguments: { name } });

describe("use_skill", () => {
  it("loads a skill's instructions by name, and the system prompt lists the skills by name and description", async () => {
    const env = await start([{ tool_calls: [useSkill("release")] }, { text: "done" }], {
      tools: { preset: "extended" },
    });
    skill(agentSkillsDir(env.dataRoot, "default"), "release", RELEASE);
    skill(
      workspaceSkillsDir(env.workspaceDir),
      "lint",
      "---\nname: lint\ndescription: How this repository is linted.\n---\nRun pnpm lint.\n",
    );
    const session = await env.session();
    await collect(session.run("Make a release.", { approve: allowAll }));
    await session.dispose();

    const prompt = systemPromptOf(env);
    expect(prompt).toContain("# Skills");
    expect(prompt).toContain("load its instructions with use_skill");
    expect(prompt).toContain("- release: Cut a release of this project (version bump, changelog, tag).");
    expect(prompt).toContain("- lint: How this repository is linted.");
    // Only names and descriptions: the instructions themselves are not in the prompt.
    expect(prompt).not.toContain("scripts/bump.sh");

    const read = toolMessage(env, 1, "s1");
    expect(read).toContain("# Skill: release");
    expect(read).toContain("1. Run scripts/bump.sh (beside this file).");
    expect(read).toContain(join(agentSkillsDir(env.dataRoot, "default"), "release"));
    expect(read).not.toContain("description: Cut a release");
  });

  it("answers an unknown name with the names there are", async () => {
    const env = await start([{ tool_calls: [useSkill("relase")] }, { text: "done" }], {
      tools: { preset: "extended" },
    });
    skill(agentSkillsDir(env.dataRoot, "default"), "release", RELEASE);
    const session = await env.session();
    const messages = await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    expect(toolMessage(env, 1, "s1")).toBe('No skill is named "relase". Available skills: release.');
    const output = messages.find((m) => (m.payload as { type?: string }).type === "tool_call_output");
    expect((output?.payload as { stop_reason?: string } | undefined)?.stop_reason).toBe("failed");
  });

  it("keeps the agent's own skill when the workspace has one of the same name", async () => {
    const env = await start([{ tool_calls: [useSkill("release")] }, { text: "done" }], {
      tools: { preset: "extended" },
    });
    skill(agentSkillsDir(env.dataRoot, "default"), "release", RELEASE);
    const shadowed = skill(
      workspaceSkillsDir(env.workspaceDir),
      "release",
      "---\nname: release\ndescription: A workspace's other release.\n---\nDo something else.\n",
    );
    const session = await env.session();
    await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    expect(toolMessage(env, 1, "s1")).toContain("scripts/bump.sh");
    expect(systemPromptOf(env)).not.toContain("A workspace's other release.");
    expect(env.warnings.join("\n")).toContain(`${shadowed}: the skill name "release" is taken`);
  });

  it("leaves out broken SKILL.md files with a warning that names each file and what is wrong", async () => {
    const env = await start([{ text: "done" }], { tools: { preset: "extended" } });
    const dir = workspaceSkillsDir(env.workspaceDir);
    const noFront = skill(dir, "a", "# Just text\n");
    const badYaml = skill(dir, "b", "---\nname: [unclosed\n---\nbody\n");
    const noDescription = skill(dir, "c", "---\nname: c\n---\nbody\n");
    skill(dir, "d", "---\nname: fine\ndescription: The one that works.\n---\nbody\n");
    const session = await env.session();
    await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    const warnings = env.warnings.join("\n");
    expect(warnings).toContain(`${noFront}: no front matter`);
    expect(warnings).toContain(`${badYaml}: the front matter is not valid YAML`);
    expect(warnings).toContain(`${noDescription}: description is missing`);
    const prompt = systemPromptOf(env);
    expect(prompt).toContain("- fine: The one that works.");
    const listed = prompt.slice(prompt.indexOf("# Skills"));
    expect(listed.match(/^- /gm)).toHaveLength(1);
  });

  it("without use_skill in the toolset, the prompt lists each skill with its SKILL.md path", async () => {
    const env = await start([{ text: "done" }]);
    const file = skill(agentSkillsDir(env.dataRoot, "default"), "release", RELEASE);
    const session = await env.session();
    await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    expect(session.tools.map((t) => t.name)).not.toContain("use_skill");
    expect(systemPromptOf(env)).toContain(`- release (${file}): Cut a release`);
  });

  it("with skills.enabled: false, lists and loads none", async () => {
    const env = await start([{ tool_calls: [useSkill("release")] }, { text: "done" }], {
      tools: { preset: "extended" },
      skills: { enabled: false },
    });
    skill(agentSkillsDir(env.dataRoot, "default"), "release", RELEASE);
    const session = await env.session();
    await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    expect(systemPromptOf(env)).not.toContain("# Skills");
    expect(toolMessage(env, 1, "s1")).toContain("Skills are turned off for this agent");
  });

  it("a session without skills keeps the prompt free of a Skills section", async () => {
    const env = await start([{ text: "done" }], { tools: { preset: "extended" } });
    const session = await env.session();
    await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    expect(systemPromptOf(env)).not.toContain("# Skills");
  });
});

describe("SKILL.md front matter", () => {
  it("gives name and description, with the instructions after it", () => {
    expect(parseSkillFile(RELEASE)).toEqual({
      ok: true,
      skill: {
        name: "release",
        description: "Cut a release of this project (version bump, changelog, tag).",
        body: "# Releasing\n1. Run scripts/bump.sh (beside this file).\n2. Tag the commit.\n",
      },
    });
  });

  it("rejects names that use_skill could not take, and descriptions too long for the prompt", () => {
    expect(parseSkillFile("---\nname: two words\ndescription: x\n---\n")).toMatchObject({
      ok: false,
      error: expect.stringContaining("name must be"),
    });
    expect(parseSkillFile(`---\nname: big\ndescription: ${"d".repeat(2000)}\n---\n`)).toMatchObject({
      ok: false,
      error: expect.stringContaining("keep it under 1024"),
    });
    expect(parseSkillFile("---\n- a\n- b\n---\n")).toMatchObject({
      ok: false,
      error: "the front matter must be a mapping with name and description",
    });
  });
});
