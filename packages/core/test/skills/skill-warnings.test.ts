import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseSkillFile, workspaceSkillsDir } from "@penguin/state";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { collect, payloadsOf, stack, traceRecords } from "../hooks/support.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";

// What goes wrong loading skills reaches SDK and web users as `warning` events in the stream and
// the trace (not only the operator's stderr), in words that say what to fix.

const start = cleanedUpAfterEach(stack);

function skill(skillsDir: string, folder: string, text: string): string {
  mkdirSync(join(skillsDir, folder), { recursive: true });
  const file = join(skillsDir, folder, "SKILL.md");
  writeFileSync(file, text);
  return file;
}

describe("skill load warnings", () => {
  it("are warning events in the stream and the trace, naming the file and what is wrong", async () => {
    const env = await start([{ text: "done" }], { tools: { preset: "extended" } });
    const dir = workspaceSkillsDir(env.workspaceDir);
    const unclosed = skill(dir, "a", "---\nname: a\ndescription: never closed\n\nbody\n");
    const noName = skill(dir, "b", "---\ndescription: who am I\n---\nbody\n");
    const session = await env.session();
    const messages = await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();

    const streamed = payloadsOf(messages, "warning");
    expect(streamed).toEqual([
      {
        type: "warning",
        source: "skills",
        message: `skill skipped: ${unclosed}: unclosed front matter: the --- block at the top of SKILL.md has no closing --- line`,
      },
      {
        type: "warning",
        source: "skills",
        message: `skill skipped: ${noName}: missing name: the front matter must give name (1-64 letters, digits, '.', '_' or '-')`,
      },
    ]);
    expect(payloadsOf(traceRecords(session.tracePath), "warning")).toEqual(streamed);
    // The operator's log still has them.
    expect(env.warnings.join("\n")).toContain(`${unclosed}: unclosed front matter`);
  });

  it("say that a skill's allowed-tools is not applied instead of ignoring it", async () => {
    const env = await start([{ text: "done" }], { tools: { preset: "extended" } });
    const file = skill(
      workspaceSkillsDir(env.workspaceDir),
      "review",
      "---\nname: review\ndescription: Review a change.\nallowed-tools: Read, Grep\n---\nLook closely.\n",
    );
    const session = await env.session();
    const messages = await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    const [warning] = payloadsOf(messages, "warning");
    expect(warning).toMatchObject({ source: "skills" });
    expect(String(warning?.message)).toBe(
      `${file}: skill "review" declares allowed-tools (Read, Grep), which Penguin does not apply: while the skill is in use the session keeps all its tools; limit an agent's tools with allowed_tools in its system_config.yaml`,
    );
  });
});

describe("SKILL.md front matter errors", () => {
  it("show the whole YAML error, with its line and excerpt", () => {
    const parsed = parseSkillFile("---\nname: x\ndescription: [unclosed\n---\nbody\n");
    expect(parsed.ok).toBe(false);
    const error = (parsed as { error: string }).error;
    expect(error).toMatch(/^the front matter is not valid YAML: /);
    // More than the first line: the library's location and the excerpt of the bad line.
    expect(error.split("\n").length).toBeGreaterThan(1);
    expect(error).toContain("description: [unclosed");
  });

  it("say missing name for an absent or null name, and keep 'got' for a name that is wrong", () => {
    for (const text of ["---\ndescription: d\n---\n", "---\nname:\ndescription: d\n---\n"]) {
      expect(parseSkillFile(text)).toMatchObject({
        ok: false,
        error: expect.stringMatching(/^missing name: /),
      });
    }
    expect(parseSkillFile("---\nname: two words\ndescription: d\n---\n")).toMatchObject({
      ok: false,
      error: expect.stringContaining('got "two words"'),
    });
  });

  it("say unclosed front matter when the opening --- has no closing line, and no front matter without one", () => {
    expect(parseSkillFile("---\nname: a\ndescription: d\n")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^unclosed front matter/),
    });
    expect(parseSkillFile("# Title\n")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^no front matter/),
    });
  });

  it("read allowed-tools as a list or a string of names, and refuse another shape", () => {
    expect(
      parseSkillFile("---\nname: a\ndescription: d\nallowed-tools: [read_file, search_text]\n---\n"),
    ).toMatchObject({
      ok: true,
      skill: { allowedTools: ["read_file", "search_text"] },
    });
    expect(
      parseSkillFile("---\nname: a\ndescription: d\nallowed-tools: Bash(git:*) Read\n---\n"),
    ).toMatchObject({
      ok: true,
      skill: { allowedTools: ["Bash(git:*)", "Read"] },
    });
    expect(parseSkillFile("---\nname: a\ndescription: d\nallowed-tools: 3\n---\n")).toMatchObject({
      ok: false,
      error: "allowed-tools must be a list of tool names (or one string of them), got 3",
    });
  });
});
