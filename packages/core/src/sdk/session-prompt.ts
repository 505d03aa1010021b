import { buildSystemPrompt, resolveToolset, type SystemConfig, systemPromptTemplate } from "@penguin/state";
import { effectiveAllowedTools } from "./allowed-tools.js";
import type { CustomToolRegistration } from "./custom-tools.js";
import type { ResolvedModel } from "./model-choice.js";
import { hiddenToolNames } from "./session-tools.js";
import type { SessionSurroundings } from "./surroundings.js";

export interface SessionPromptInput {
  agentId: string;
  dataRoot: string;
  config: SystemConfig;
  extraTools: readonly CustomToolRegistration[];
  sessionId: string;
  workspaceDir: string;
  resolved: ResolvedModel;
  surroundings: SessionSurroundings;
  /** A child session: its agent's instructions, and whether it may launch children. */
  child?: { instructions?: string; mayLaunch: boolean };
}

/** The heading of a child's own instructions, after the agent's system prompt. */
export const CHILD_INSTRUCTIONS_HEADING = "# Your instructions as a child agent";

/** A new session's system prompt, from the agent's template (a resumed one reuses its recorded one). */
export async function sessionSystemPrompt(input: SessionPromptInput): Promise<string> {
  const { config, resolved, child } = input;
  const prompt = await buildSystemPrompt({
    template: systemPromptTemplate(config),
    cwd: input.workspaceDir,
    dataDir: input.dataRoot,
    agentId: input.agentId,
    sessionId: input.sessionId,
    provider: resolved.adapter.info.provider,
    modelId: resolved.adapter.info.modelId,
    ...skillsForPrompt(config, input.surroundings),
    namedAgents: input.surroundings.agents.list(),
    // What the session leaves out of its toolset is not listed either.
    tools: offeredToolNames(
      config,
      input.extraTools,
      hiddenToolNames(child !== undefined, child?.mayLaunch ?? true),
    ),
  });
  const instructions = child?.instructions?.trim();
  return instructions ? `${prompt}\n\n${CHILD_INSTRUCTIONS_HEADING}\n\n${instructions}\n` : prompt;
}

/** The built-in and code-registered tools a session offers, after `allowed_tools`. */
function offeredToolNames(
  config: SystemConfig,
  extraTools: readonly CustomToolRegistration[],
  hidden: readonly string[],
): string[] {
  const allowed = effectiveAllowedTools(config.allowed_tools);
  const names = [
    ...resolveToolset(config)
      .map((tool) => tool.name)
      .filter((name) => !hidden.includes(name)),
    ...extraTools.map((tool) => tool.name),
  ];
  return allowed === undefined ? names : names.filter((name) => allowed.includes(name));
}

/**
 * "the system prompt lists the available skills by name and description": loaded with
 * use_skill when the session offers it, else read by path.
 */
function skillsForPrompt(config: SystemConfig, surroundings: SessionSurroundings) {
  const skills = surroundings.skills?.list() ?? [];
  if (skills.length === 0) return {};
  const allowed = config.allowed_tools;
  const hasUseSkill =
    resolveToolset(config).some((tool) => tool.name === "use_skill") &&
    (allowed === undefined || allowed.includes("use_skill"));
  return { skills, ...(hasUseSkill ? { skillTool: "use_skill" } : {}) };
}
