import { agentSkillsDir, discoverSkills, type SkillInfo, workspaceSkillsDir } from "@penguin/state";
import { type FirstNameAdded, FirstNameCatalog } from "./first-name-catalog.js";

// The skills a session knows: the agent's own (`<dataRoot>/agents/<agentId>/skills/`), then the
// workspace's (`<workspace>/.agents/skills/`), then those of directories change_directory
// enters. The first skill of a name wins: a workspace cannot replace one of the agent's own
// skills by reusing its name, and a later directory cannot replace an earlier one.

export type SkillsAdded = FirstNameAdded<SkillInfo>;

export class SkillCatalog extends FirstNameCatalog<SkillInfo> {}

export interface SessionSkills {
  catalog: SkillCatalog;
  /** SKILL.md files that could not be used, one line each. */
  problems: string[];
  /** Skills loaded with something Penguin does not apply (`allowed-tools`), one line each. */
  notices: string[];
}

/**
 * A skill's `allowed-tools` is not applied: Penguin limits tools per agent (`allowed_tools`), not
 * per skill. Said out loud, so nobody relies on a limit that is not there.
 */
export function allowedToolsNotice(skill: SkillInfo): string | undefined {
  if (skill.allowedTools === undefined) return undefined;
  const names = skill.allowedTools.length > 0 ? skill.allowedTools.join(", ") : "(none)";
  return `${skill.file}: skill "${skill.name}" declares allowed-tools (${names}), which Penguin does not apply: while the skill is in use the session keeps all its tools; limit an agent's tools with allowed_tools in its system_config.yaml`;
}

/** The skills a new session starts with: the agent's, then the workspace's. */
export async function loadSessionSkills(
  dataRoot: string,
  agentId: string,
  workspaceDir: string,
): Promise<SessionSkills> {
  const catalog = new SkillCatalog();
  const problems: string[] = [];
  const notices: string[] = [];
  for (const [dir, source] of [
    [agentSkillsDir(dataRoot, agentId), "agent"],
    [workspaceSkillsDir(workspaceDir), "workspace"],
  ] as const) {
    const found = await discoverSkills(dir, source);
    problems.push(...found.problems);
    const { added, shadowed } = catalog.add(found.skills);
    for (const skill of added) {
      const notice = allowedToolsNotice(skill);
      if (notice) notices.push(notice);
    }
    for (const { entry: skill, by } of shadowed) {
      problems.push(
        `${skill.file}: the skill name "${skill.name}" is taken by ${by.file}; this one is left out`,
      );
    }
  }
  return { catalog, problems, notices };
}
