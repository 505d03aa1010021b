import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { discoverSkills, MAX_SKILL_FOLDERS, workspaceSkillsDir } from "../src/index.js";

// Which folders of `.agents/skills` count as skills: real directories, symbolic links to
// directories (a skill shared between workspaces), and no more than MAX_SKILL_FOLDERS of them,
// each one left out said so in `problems`.

let workspace: string;
let skillsDir: string;
beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), "penguin-skill-folders-"));
  skillsDir = workspaceSkillsDir(workspace);
  await mkdir(skillsDir, { recursive: true });
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

async function skillIn(dir: string, name: string) {
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, "SKILL.md"),
    `---\nname: ${name}\ndescription: The ${name} skill.\n---\nDo ${name}.\n`,
  );
}

describe("skill folders", () => {
  it("include a symbolic link to a skill directory elsewhere, under the link's path", async () => {
    await skillIn(join(workspace, "shared", "deploy"), "deploy");
    await symlink(join("..", "..", "shared", "deploy"), join(skillsDir, "deploy"));
    await skillIn(join(skillsDir, "local"), "local");

    const found = await discoverSkills(skillsDir, "workspace");
    expect(found.problems).toEqual([]);
    expect(found.skills.map((skill) => skill.name)).toEqual(["deploy", "local"]);
    expect(found.skills[0]).toMatchObject({
      dir: join(skillsDir, "deploy"),
      file: join(skillsDir, "deploy", "SKILL.md"),
      source: "workspace",
    });
  });

  it("report a broken link, and a loop of links, with the reason; the other skills still load", async () => {
    await symlink(join(workspace, "nowhere"), join(skillsDir, "gone"));
    await symlink(join(skillsDir, "loop-b"), join(skillsDir, "loop-a"));
    await symlink(join(skillsDir, "loop-a"), join(skillsDir, "loop-b"));
    await skillIn(join(skillsDir, "fine"), "fine");

    const found = await discoverSkills(skillsDir, "workspace");
    expect(found.skills.map((skill) => skill.name)).toEqual(["fine"]);
    expect(found.problems).toEqual([
      `${join(skillsDir, "gone")}: a symbolic link, not loaded as a skill: its target does not exist`,
      `${join(skillsDir, "loop-a")}: a symbolic link, not loaded as a skill: it is part of a loop of links`,
      `${join(skillsDir, "loop-b")}: a symbolic link, not loaded as a skill: it is part of a loop of links`,
    ]);
  });

  it("ignore files and links to files, as before", async () => {
    await writeFile(join(workspace, "notes.md"), "not a skill");
    await symlink(join(workspace, "notes.md"), join(skillsDir, "notes"));
    await writeFile(join(skillsDir, "README.md"), "about these skills");

    const found = await discoverSkills(skillsDir, "workspace");
    expect(found).toEqual({ skills: [], problems: [] });
  });

  it(`are looked at up to ${MAX_SKILL_FOLDERS} per directory, and the problems say how many were left out`, async () => {
    const total = MAX_SKILL_FOLDERS + 3;
    const names = Array.from({ length: total }, (_, i) => `s${String(i).padStart(4, "0")}`);
    await Promise.all(names.map((name) => skillIn(join(skillsDir, name), name)));

    const found = await discoverSkills(skillsDir, "workspace");
    expect(found.skills).toHaveLength(MAX_SKILL_FOLDERS);
    expect(found.skills.at(-1)?.name).toBe(names[MAX_SKILL_FOLDERS - 1]);
    expect(found.problems).toEqual([
      `${skillsDir}: 3 of its ${total} folders were left out (from "${names[MAX_SKILL_FOLDERS]}" on, in name order): at most ${MAX_SKILL_FOLDERS} skill folders are looked at per directory`,
    ]);
  });
});
