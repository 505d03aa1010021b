import { join } from "node:path";
import {
  allowedToolsOf,
  descriptionOf,
  markdownFiles,
  parseFrontMatter,
  readBoundedFile,
} from "./front-matter-file.js";
import { agentDir } from "./paths.js";

// Named agents ("`.agents/agents/<name>.md` files (front matter `name` = file name, `description`,
// optional `allowed-tools`; the body is the agent's instructions) in the agent state folder and in
// the workspace"). A child agent is started by its name; the system prompt lists them by name and
// description. A file that cannot be used is reported and left out, never fatal.

export const NAMED_AGENT_FILE_EXTENSION = ".md";
/** The agent's own named agents: `<dataRoot>/agents/<agentId>/agents/<name>.md`. */
export const AGENT_NAMED_AGENTS_FOLDER = "agents";
/** A workspace's named agents: `<workspace>/.agents/agents/<name>.md`. */
export const WORKSPACE_NAMED_AGENTS_DIR = join(".agents", "agents");
/** A named agent's name, as the model writes it (and as its file is named, without `.md`). */
export const NAMED_AGENT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Descriptions are listed in the system prompt, sent with every request: kept short. */
export const NAMED_AGENT_DESCRIPTION_MAX_CHARS = 1_024;
/** "128 KiB per file" (the reference's cap on a configuration file): instructions, not data. */
export const NAMED_AGENT_FILE_MAX_BYTES = 128 * 1024;
/** "64 each of … named agents" per folder, so a huge folder cannot stall a session's start. */
export const MAX_NAMED_AGENT_FILES = 64;

export type NamedAgentSource = "agent" | "workspace";

/** A named agent as a session knows it. */
export interface NamedAgent {
  name: string;
  /** One line (whitespace folded): what the agent is for. */
  description: string;
  /** The body after the front matter: the agent's instructions. */
  instructions: string;
  /** The tools it may use (`allowed-tools`); absent: the tools of the agent that starts it. */
  allowedTools?: string[];
  /** The file it came from (absolute). */
  file: string;
  source: NamedAgentSource;
}

export type NamedAgentParse =
  | { ok: true; agent: Omit<NamedAgent, "file" | "source"> }
  | { ok: false; error: string };

export function agentNamedAgentsDir(dataRoot: string, agentId: string): string {
  return join(agentDir(dataRoot, agentId), AGENT_NAMED_AGENTS_FOLDER);
}

export function workspaceNamedAgentsDir(dir: string): string {
  return join(dir, WORKSPACE_NAMED_AGENTS_DIR);
}

/** Parses `<fileName>.md`: YAML front matter (`name` equal to `fileName`, `description`), then the instructions. */
export function parseNamedAgentFile(text: string, fileName: string): NamedAgentParse {
  const parsed = parseFrontMatter(text, {
    unclosed: "unclosed front matter: the --- block at the top has no closing --- line",
    missing: "no front matter: a named agent's file must start with a --- block giving name and description",
  });
  if (!parsed.ok) return parsed;
  const { name, description } = parsed.fields;
  if (typeof name !== "string" || name.trim() === "") {
    return { ok: false, error: `missing name: the front matter must give name: ${fileName}` };
  }
  if (name !== fileName) {
    return {
      ok: false,
      error: `name is ${JSON.stringify(name)} but the file is ${fileName}${NAMED_AGENT_FILE_EXTENSION}: a named agent's name must equal its file name`,
    };
  }
  const described = descriptionOf(description, NAMED_AGENT_DESCRIPTION_MAX_CHARS, "named agent");
  if (!described.ok) return described;
  const allowed = allowedToolsOf(parsed.fields["allowed-tools"]);
  if (!allowed.ok) return { ok: false, error: allowed.error };
  const instructions = parsed.body.trim();
  if (instructions === "") {
    return { ok: false, error: "no instructions: the text after the front matter is what the agent is told" };
  }
  return {
    ok: true,
    agent: {
      name,
      description: described.description,
      instructions,
      ...(allowed.tools ? { allowedTools: allowed.tools } : {}),
    },
  };
}

/** A problem with one file: the caller turns each into a `warning` event. */
export interface NamedAgentProblem {
  file: string;
  message: string;
}

export interface NamedAgentDiscovery {
  agents: NamedAgent[];
  problems: NamedAgentProblem[];
}

/**
 * The named agents in `dir` (`<name>.md` files), in bytewise name order. A missing folder has
 * none; a file that cannot be read or parsed is reported and left out, and so are the files
 * beyond `MAX_NAMED_AGENT_FILES`.
 */
export async function discoverNamedAgents(
  dir: string,
  source: NamedAgentSource,
): Promise<NamedAgentDiscovery> {
  const result: NamedAgentDiscovery = { agents: [], problems: [] };
  const names = await markdownFiles(dir);
  if (!names) return result;
  for (const entry of names.slice(0, MAX_NAMED_AGENT_FILES)) {
    const file = join(dir, entry);
    const stem = entry.slice(0, -NAMED_AGENT_FILE_EXTENSION.length);
    if (!NAMED_AGENT_NAME_PATTERN.test(stem)) {
      result.problems.push({
        file,
        message: `the file name must be 1-64 letters, digits, '.', '_' or '-' (starting with a letter or digit) before .md`,
      });
      continue;
    }
    const read = await readBoundedFile(file, NAMED_AGENT_FILE_MAX_BYTES, "a named agent's file");
    if (!read.ok) {
      result.problems.push({ file, message: `cannot read it: ${read.error}` });
      continue;
    }
    const parsed = parseNamedAgentFile(read.text, stem);
    if (!parsed.ok) {
      result.problems.push({ file, message: parsed.error });
      continue;
    }
    result.agents.push({ ...parsed.agent, file, source });
  }
  if (names.length > MAX_NAMED_AGENT_FILES) {
    result.problems.push({
      file: dir,
      message: `${names.length - MAX_NAMED_AGENT_FILES} of its ${names.length} files were left out (from ${JSON.stringify(names[MAX_NAMED_AGENT_FILES])} on, in name order): at most ${MAX_NAMED_AGENT_FILES} named agents are read per folder`,
    });
  }
  return result;
}
