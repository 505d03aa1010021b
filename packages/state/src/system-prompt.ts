import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { modelVisiblePath } from "./paths.js";
import { formatRules, RULES_DIR, type RuleFile, readRules } from "./rules.js";

/** "AGENTS.md contents inserted … capped at e.g. 25,000 chars with a note." */
export const AGENTS_MD_MAX_CHARS = 25_000;
export const AGENTS_MD_FILE = "AGENTS.md";

/**
 * The default system prompt. It is sent with every request, so it says only who the agent is,
 * how to work with its tools and when to stop. `{{NAME}}` placeholders are expanded once, when a
 * session is created (see `expandSystemPrompt`).
 */
export const DEFAULT_SYSTEM_PROMPT = `You are Penguin, a coding agent working in the user's workspace. You act through tool calls; the user sees each call and its output and may deny a call.

# How to work
- Do what the user asked, completely and no more. If the request is ambiguous in a way that matters, ask one short question instead of guessing.
- Look before you change: read the relevant code, then make small exact edits.
- Verify your work: run the build, tests or program and read the result.
- Calls that do not depend on each other can go in the same turn; they run concurrently.
- When a call fails or is denied, read the message and adapt. Do not repeat a call unchanged.

{{TOOLS}}
# When to stop
Stop when the task is done and verified, or when you need the user to decide or to supply something (say exactly what). End with a brief summary: what you changed, how you verified it, what is left.

# Environment
- Workspace (CWD): {{CWD}}
- App data dir: {{DATA_DIR}}
- Date: {{DATE}}
- Platform: {{PLATFORM}}; shell: {{SHELL}}
{{AGENTS_MD}}{{RULES}}{{SKILLS}}{{NAMED_AGENTS}}`;

/** Values for the placeholders; a placeholder without a value is left as written. */
export interface SystemPromptValues {
  /** The workspace; shown in model-visible spelling. */
  cwd: string;
  /** The data root ("App data dir"); shown in model-visible spelling. */
  dataDir: string;
  /** yyyy-mm-dd. */
  date: string;
  platform: string;
  shell: string;
  /** The workspace's AGENTS.md text (see `readAgentsMd`); no block when absent or blank. */
  agentsMd?: string;
  /**
   * The workspace's rules (`.agents/rules/*.md`, see `readRules`), in the order given; no block
   * when there are none.
   */
  rules?: readonly RuleFile[];
  agentId?: string;
  sessionId?: string;
  provider?: string;
  modelId?: string;
  /** The skills to list by name and description (`{{SKILLS}}`); no block when there are none. */
  skills?: readonly PromptSkill[];
  /**
   * The names of the tools the session offers (`{{TOOLS}}`), after `allowed_tools`: the section
   * mentions only these. Undefined: the default toolset's.
   */
  tools?: readonly string[];
  /**
   * The tool that loads a skill by name (`use_skill`) when the session has it; without one, each
   * skill is listed with its SKILL.md path for the file tools.
   */
  skillTool?: string;
  /** The named agents to list by name and description (`{{NAMED_AGENTS}}`); no block when there are none. */
  namedAgents?: readonly PromptNamedAgent[];
  /** Extra placeholders, by name (`{ FOO: "x" }` expands `{{FOO}}`). */
  extra?: Record<string, string>;
}

/** A skill as the system prompt lists it. */
export interface PromptSkill {
  name: string;
  description: string;
  /** Its SKILL.md (absolute). */
  file: string;
}

/** A named agent as the system prompt lists it. */
export interface PromptNamedAgent {
  name: string;
  description: string;
}

/** "compact: every byte is paid on every request": at most this many named agents are listed… */
export const PROMPT_NAMED_AGENTS_MAX = 32;
/** …each description cut to this many characters (the full one stays in the agent's file). */
export const PROMPT_NAMED_AGENT_DESCRIPTION_MAX_CHARS = 160;

/** The tools the built-in `# Tools` lines are about, when a caller does not say which it has. */
const DEFAULT_TOOLSET_NAMES = [
  "exec_command",
  "input_command",
  "read_file",
  "edit_file",
  "write_file",
  "run_subagent",
];

/** Lists names the way the prompt writes them: `a`, `a and b`, `a, b and c`. */
function spokenList(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/**
 * The `# Tools` section, from the tools the session really has: a line about a tool that
 * `allowed_tools` removed would send the model after a call it cannot make.
 */
export function toolsBlock(tools: readonly string[]): string {
  const has = (name: string) => tools.includes(name);
  if (tools.length === 0)
    return "# Tools\nThis session has no tools: answer from what you know and what the user gives you.\n";
  const lines: string[] = [];
  if (has("exec_command")) {
    const background = has("input_command")
      ? "; poll it, write to it or stop it (Ctrl-C) with input_command"
      : "";
    lines.push(
      `- exec_command runs \`bash -lc\` in the workspace. A command that outlasts yield_time_ms moves to the background with a process_id${background}.`,
    );
  }
  const fileTools = ["read_file", "edit_file", "write_file"].filter(has);
  if (fileTools.length > 0) {
    const shell = has("exec_command") ? ", and the shell for searching (rg, find) and everything else" : "";
    lines.push(
      `- Use ${spokenList(fileTools)} for files${shell}. Paths are absolute or relative to the workspace.`,
    );
  }
  if (has("run_subagent"))
    lines.push("- Give run_subagent only self-contained subtasks, with all the context in the prompt.");
  lines.push("- Long tool output is cut; the note at its end names a file holding the full text.");
  return `# Tools\n${lines.join("\n")}\n`;
}

/**
 * Expands `{{NAME}}` placeholders in one pass: inserted text is never scanned again (an AGENTS.md
 * that contains `{{CWD}}` keeps it literally), and unknown placeholders stay as written.
 */
export function expandSystemPrompt(template: string, values: SystemPromptValues): string {
  const cwd = modelVisiblePath(values.cwd);
  const table: Record<string, string | undefined> = {
    ...values.extra,
    CWD: cwd,
    DATA_DIR: modelVisiblePath(values.dataDir),
    PROJECT_DIR: modelVisiblePath(values.dataDir),
    DATE: values.date,
    PLATFORM: values.platform,
    SHELL: values.shell,
    AGENTS_MD: agentsMdBlock(values.agentsMd, cwd),
    RULES: rulesBlock(values.rules, cwd),
    SKILLS: skillsBlock(values.skills, values.skillTool),
    NAMED_AGENTS: namedAgentsBlock(values.namedAgents),
    TOOLS: toolsBlock(values.tools ?? DEFAULT_TOOLSET_NAMES),
    AGENT_ID: values.agentId,
    SESSION_ID: values.sessionId,
    PROVIDER: values.provider,
    MODEL_ID: values.modelId,
  };
  return template.replace(/\{\{([A-Z][A-Z0-9_]*)\}\}/g, (token, name: string) => table[name] ?? token);
}

function agentsMdBlock(text: string | undefined, cwd: string): string {
  if (text === undefined || text.trim() === "") return "";
  return `\n# Workspace instructions\nThe workspace's AGENTS.md (${cwd.replace(/\/$/, "")}/${AGENTS_MD_FILE}) follows between the markers. Follow it unless the user says otherwise.\n[agents_md]\n${text.trimEnd()}\n[/agents_md]\n`;
}

/**
 * The workspace's rules, beside its AGENTS.md: the same sections, caps and notes as
 * change_directory returns for a directory it enters (see `formatRules`).
 */
function rulesBlock(rules: readonly RuleFile[] | undefined, cwd: string): string {
  if (!rules || rules.length === 0) return "";
  const folder = `${cwd.replace(/\/$/, "")}/${RULES_DIR.replaceAll("\\", "/")}`;
  return `\n# Workspace rules\nThe workspace's rules (${folder}/*.md) follow between the markers, one section per file. Follow them unless the user says otherwise.\n[rules]\n${formatRules(rules)}\n[/rules]\n`;
}

/** "the system prompt lists the available skills by name and description". */
export function skillsBlock(
  skills: readonly PromptSkill[] | undefined,
  skillTool: string | undefined,
): string {
  if (!skills || skills.length === 0) return "";
  const how = skillTool
    ? `When a task matches a skill, load its instructions with ${skillTool} before you start.`
    : "When a task matches a skill, read its SKILL.md (the path after the name) before you start.";
  const lines = skills.map((skill) =>
    skillTool
      ? `- ${skill.name}: ${skill.description}`
      : `- ${skill.name} (${modelVisiblePath(skill.file)}): ${skill.description}`,
  );
  return `\n# Skills\n${how}\n${lines.join("\n")}\n`;
}

/** One line per named agent (name and description), bounded by the two caps above. */
export function namedAgentsBlock(agents: readonly PromptNamedAgent[] | undefined): string {
  if (!agents || agents.length === 0) return "";
  const cut = (text: string) =>
    text.length <= PROMPT_NAMED_AGENT_DESCRIPTION_MAX_CHARS
      ? text
      : `${text.slice(0, PROMPT_NAMED_AGENT_DESCRIPTION_MAX_CHARS - 1)}…`;
  const lines = agents
    .slice(0, PROMPT_NAMED_AGENTS_MAX)
    .map((agent) => `- ${agent.name}: ${cut(agent.description)}`);
  const left = agents.length - PROMPT_NAMED_AGENTS_MAX;
  if (left > 0) lines.push(`- (${left} more not listed)`);
  return `\n# Named agents\nAgents defined for this workspace, each with its own instructions (this session has no tool that starts them):\n${lines.join("\n")}\n`;
}

/**
 * Reads `<cwd>/AGENTS.md` for the prompt: undefined when there is none (or it cannot be read);
 * text beyond `AGENTS_MD_MAX_CHARS` is replaced by a note that points at the file.
 */
export async function readAgentsMd(cwd: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(join(cwd, AGENTS_MD_FILE), "utf8");
  } catch {
    return undefined;
  }
  if (text.length <= AGENTS_MD_MAX_CHARS) return text;
  return `${text.slice(0, AGENTS_MD_MAX_CHARS)}\n[AGENTS.md truncated: showing the first ${AGENTS_MD_MAX_CHARS} of ${text.length} characters; read the file for the rest]`;
}

export interface BuildSystemPromptOptions {
  /** Default: `DEFAULT_SYSTEM_PROMPT` (an agent's `system_prompt` when it has one). */
  template?: string;
  cwd: string;
  dataDir: string;
  /** Default: now. */
  now?: Date;
  /** Default: `process.platform`. */
  platform?: string;
  /** Default: "bash" (exec_command always runs `bash -lc`). */
  shell?: string;
  agentId?: string;
  sessionId?: string;
  provider?: string;
  modelId?: string;
  skills?: readonly PromptSkill[];
  skillTool?: string;
  namedAgents?: readonly PromptNamedAgent[];
  /** The tools the session offers (see `SystemPromptValues.tools`). */
  tools?: readonly string[];
  extra?: Record<string, string>;
}

/**
 * The prompt a new session records in its `session_meta`: the template expanded with the
 * workspace, data dir, date, platform, shell, the workspace's AGENTS.md and its rules
 * (`.agents/rules/*.md`, in file-name order, so the prompt is the same bytes for the same files
 * and prompt caching keeps working). A resumed session
 * reuses the recorded text unchanged, so this runs once per session.
 */
export async function buildSystemPrompt(options: BuildSystemPromptOptions): Promise<string> {
  const now = options.now ?? new Date();
  return expandSystemPrompt(options.template ?? DEFAULT_SYSTEM_PROMPT, {
    cwd: options.cwd,
    dataDir: options.dataDir,
    date: localDate(now),
    platform: options.platform ?? process.platform,
    shell: options.shell ?? "bash",
    agentsMd: await readAgentsMd(options.cwd),
    rules: await readRules(options.cwd),
    agentId: options.agentId,
    sessionId: options.sessionId,
    provider: options.provider,
    modelId: options.modelId,
    skills: options.skills,
    skillTool: options.skillTool,
    namedAgents: options.namedAgents,
    tools: options.tools,
    extra: options.extra,
  });
}

function localDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}
