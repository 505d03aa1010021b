import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { allowedToolsOf, descriptionOf, parseFrontMatter, readBoundedFile } from "./front-matter-file.js";
import { agentDir } from "./paths.js";

// Skills ("`SKILL.md` folders found in the agent state and the workspace"): each skill is a
// folder with a SKILL.md whose YAML front matter gives its `name` and `description`. The system
// prompt lists them by name and description; `use_skill` loads one's full instructions, and the
// files beside it are read on demand.

export const SKILL_FILE = "SKILL.md";
/** The agent's own skills: `<dataRoot>/agents/<agentId>/skills/<folder>/SKILL.md`. */
export const AGENT_SKILLS_FOLDER = "skills";
/** A workspace's skills: `<workspace>/.agents/skills/<folder>/SKILL.md`. */
export const WORKSPACE_SKILLS_DIR = join(".agents", "skills");
/** A skill name as the model writes it in `use_skill`. */
export const SKILL_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Descriptions are sent with every request, so each is kept short. */
export const SKILL_DESCRIPTION_MAX_CHARS = 1_024;
/** A SKILL.md larger than this is not loaded (instructions, not data). */
export const SKILL_FILE_MAX_BYTES = 1024 * 1024;
/** Skill folders looked at per directory, so a huge folder cannot stall a session's start. */
export const MAX_SKILL_FOLDERS = 500;

export type SkillSource = "agent" | "workspace";

/** What the prompt lists about a skill, and where its instructions are. */
export interface SkillInfo {
  name: string;
  description: string;
  /** The SKILL.md file (absolute). */
  file: string;
  /** The skill's folder (absolute): the files beside SKILL.md. */
  dir: string;
  source: SkillSource;
  /** The skill's `allowed-tools` front matter, when it has one (see `SkillFile.allowedTools`). */
  allowedTools?: string[];
}

export interface SkillFile {
  name: string;
  description: string;
  /** The instructions after the front matter. */
  body: string;
  /**
   * `allowed-tools` (a list, or one string of names separated by commas or spaces), as other
   * harnesses' skills declare it. Penguin does not narrow a session's tools per skill, so the
   * caller warns that it is not applied rather than dropping it silently.
   */
  allowedTools?: string[];
}

export type SkillParse = { ok: true; skill: SkillFile } | { ok: false; error: string };

export function agentSkillsDir(dataRoot: string, agentId: string): string {
  return join(agentDir(dataRoot, agentId), AGENT_SKILLS_FOLDER);
}

export function workspaceSkillsDir(dir: string): string {
  return join(dir, WORKSPACE_SKILLS_DIR);
}

/** Parses a SKILL.md: YAML front matter with `name` and `description`, then the instructions. */
export function parseSkillFile(text: string): SkillParse {
  const parsed = parseFrontMatter(text, {
    unclosed: "unclosed front matter: the --- block at the top of SKILL.md has no closing --- line",
    missing: "no front matter: SKILL.md must start with a --- block giving name and description",
  });
  if (!parsed.ok) return parsed;
  const { name, description } = parsed.fields;
  if (name === undefined || name === null || (typeof name === "string" && name.trim() === "")) {
    return {
      ok: false,
      error: "missing name: the front matter must give name (1-64 letters, digits, '.', '_' or '-')",
    };
  }
  if (typeof name !== "string" || !SKILL_NAME_PATTERN.test(name)) {
    return {
      ok: false,
      error: `name must be 1-64 letters, digits, '.', '_' or '-' (starting with a letter or digit), got ${JSON.stringify(name ?? null)}`,
    };
  }
  const described = descriptionOf(description, SKILL_DESCRIPTION_MAX_CHARS, "skill");
  if (!described.ok) return described;
  const allowed = allowedToolsOf(parsed.fields["allowed-tools"]);
  if (!allowed.ok) return { ok: false, error: allowed.error };
  return {
    ok: true,
    skill: {
      name,
      description: described.description,
      body: parsed.body,
      ...(allowed.tools ? { allowedTools: allowed.tools } : {}),
    },
  };
}

/** Reads a SKILL.md, refusing one above `SKILL_FILE_MAX_BYTES`. */
export function readSkillFile(
  file: string,
): Promise<{ ok: true; text: string } | { ok: false; error: string }> {
  return readBoundedFile(file, SKILL_FILE_MAX_BYTES, "a SKILL.md");
}

export interface SkillDiscovery {
  skills: SkillInfo[];
  /** One line per SKILL.md that could not be used, saying which and why. */
  problems: string[];
}

/**
 * The folders in `skillsDir`, in name order: directories, and symbolic links to directories (a
 * shared skill linked in, e.g. `.agents/skills/foo -> ../shared/foo`). A link whose target is
 * missing or unreadable is reported; a link to a file, like a file, is not a skill folder.
 */
async function skillFolders(skillsDir: string, problems: string[]): Promise<string[] | undefined> {
  let entries: Dirent[];
  try {
    entries = await readdir(skillsDir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  const folders: string[] = [];
  for (const entry of entries) {
    if (entry.isDirectory()) {
      folders.push(entry.name);
    } else if (entry.isSymbolicLink()) {
      const link = join(skillsDir, entry.name);
      try {
        if ((await stat(link)).isDirectory()) folders.push(entry.name);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        const why =
          code === "ENOENT"
            ? "its target does not exist"
            : code === "ELOOP"
              ? "it is part of a loop of links"
              : `its target cannot be read (${code ?? String(error)})`;
        problems.push(`${link}: a symbolic link, not loaded as a skill: ${why}`);
      }
    }
  }
  return folders.sort();
}

/**
 * The skills in `<skillsDir>/<folder>/SKILL.md`, in folder-name order (a folder may be a symbolic
 * link to a directory). A missing `skillsDir` has none; a folder without SKILL.md is skipped
 * silently; a broken SKILL.md or link (or a name used twice in the same directory) is reported and
 * left out, and so are the folders beyond `MAX_SKILL_FOLDERS`.
 */
export async function discoverSkills(skillsDir: string, source: SkillSource): Promise<SkillDiscovery> {
  const result: SkillDiscovery = { skills: [], problems: [] };
  const folders = await skillFolders(skillsDir, result.problems);
  if (!folders) return result;
  for (const folder of folders.slice(0, MAX_SKILL_FOLDERS)) {
    const dir = join(skillsDir, folder);
    const file = join(dir, SKILL_FILE);
    const read = await readSkillFile(file);
    if (!read.ok) {
      if (read.error !== "ENOENT") result.problems.push(`${file}: cannot read it: ${read.error}`);
      continue;
    }
    const parsed = parseSkillFile(read.text);
    if (!parsed.ok) {
      result.problems.push(`${file}: ${parsed.error}`);
      continue;
    }
    const { name, description, allowedTools } = parsed.skill;
    if (result.skills.some((skill) => skill.name === name)) {
      result.problems.push(
        `${file}: another skill in ${skillsDir} is already named "${name}"; this one is left out`,
      );
      continue;
    }
    result.skills.push({ name, description, file, dir, source, ...(allowedTools ? { allowedTools } : {}) });
  }
  if (folders.length > MAX_SKILL_FOLDERS) {
    const left = folders.length - MAX_SKILL_FOLDERS;
    result.problems.push(
      `${skillsDir}: ${left} of its ${folders.length} folders were left out (from ${JSON.stringify(folders[MAX_SKILL_FOLDERS])} on, in name order): at most ${MAX_SKILL_FOLDERS} skill folders are looked at per directory`,
    );
  }
  return result;
}
