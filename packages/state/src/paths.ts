import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

/** "The data root is `PENGUIN_HOME`, else `~/.penguin/data`." */
export const DATA_ROOT_ENV = "PENGUIN_HOME";
export const DEFAULT_DATA_ROOT_SEGMENTS = [".penguin", "data"] as const;

/** The agent a session uses when none is named; created on demand. */
export const DEFAULT_AGENT_ID = "default";
/** The project whose config applies when none is named. */
export const DEFAULT_PROJECT_ID = "default";

export const PROJECT_CONFIG_FILE = "project.yaml";
export const SYSTEM_CONFIG_FILE = "system_config.yaml";
export const TRUNCATED_OUTPUT_DIR = "truncated-tool-output";

/**
 * Ids that become one path segment (sessions, agents, projects): letters, digits, `-` and `_`,
 * starting with a letter or digit, at most 128 characters. No dots and no separators, so an id
 * can never climb out of its parent folder (`..`, `a/../../x`, `C:\x`) or name a hidden file.
 */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export function isValidSessionId(id: unknown): id is string {
  return typeof id === "string" && SAFE_ID.test(id);
}

export function isValidAgentId(id: unknown): id is string {
  return typeof id === "string" && SAFE_ID.test(id);
}

export function isValidProjectId(id: unknown): id is string {
  return typeof id === "string" && SAFE_ID.test(id);
}

function checkedId(kind: string, id: string): string {
  if (!SAFE_ID.test(id)) {
    throw new TypeError(
      `invalid ${kind} id ${JSON.stringify(id)}: use 1-128 letters, digits, '-' or '_', starting with a letter or digit`,
    );
  }
  return id;
}

/**
 * The data root: `PENGUIN_HOME` when set (a leading `~` is the home folder, relative paths
 * resolve against the current directory), else `~/.penguin/data`.
 */
export function resolveDataRoot(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const configured = env[DATA_ROOT_ENV]?.trim();
  if (!configured) return join(home, ...DEFAULT_DATA_ROOT_SEGMENTS);
  if (configured === "~") return home;
  if (configured.startsWith("~/") || configured.startsWith("~\\")) return join(home, configured.slice(2));
  return isAbsolute(configured) ? configured : resolve(configured);
}

export function projectsDir(root: string): string {
  return join(root, "projects");
}

export function projectDir(root: string, projectId: string = DEFAULT_PROJECT_ID): string {
  return join(projectsDir(root), checkedId("project", projectId));
}

/** `projects/<projectId>/project.yaml`: models, keys, default and vision model, guardrail rules. */
export function projectConfigFile(root: string, projectId: string = DEFAULT_PROJECT_ID): string {
  return join(projectDir(root, projectId), PROJECT_CONFIG_FILE);
}

export function agentsDir(root: string): string {
  return join(root, "agents");
}

export function agentDir(root: string, agentId: string): string {
  return join(agentsDir(root), checkedId("agent", agentId));
}

/** `agents/<agentId>/system_config.yaml`. */
export function systemConfigFile(root: string, agentId: string): string {
  return join(agentDir(root, agentId), SYSTEM_CONFIG_FILE);
}

/** `traces/`: one folder per day, written by `@penguin/trace`. */
export function tracesDir(root: string): string {
  return join(root, "traces");
}

/** `traces/<yyyy-mm-dd>/` for the day a session started. */
export function traceDayDir(root: string, day: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day))
    throw new TypeError(`invalid trace day ${JSON.stringify(day)}: use yyyy-mm-dd`);
  return join(tracesDir(root), day);
}

/** `traces/<yyyy-mm-dd>/<sessionId>_<NNN>.jsonl`; the index is 1-based and padded to 3 digits. */
export function traceFile(root: string, day: string, sessionId: string, index: number): string {
  if (!Number.isInteger(index) || index < 1)
    throw new TypeError(`invalid trace file index ${index}: use 1, 2, …`);
  const name = `${checkedId("session", sessionId)}_${String(index).padStart(3, "0")}.jsonl`;
  return join(traceDayDir(root, day), name);
}

export function scratchpadRoot(root: string): string {
  return join(root, "scratchpad");
}

/** `scratchpad/<sessionId>/`: files a session owns; deleted with the session. */
export function scratchpadDir(root: string, sessionId: string): string {
  return join(scratchpadRoot(root), checkedId("session", sessionId));
}

/** `scratchpad/<sessionId>/truncated-tool-output/`: full text of outputs that were cut. */
export function truncatedOutputDir(root: string, sessionId: string): string {
  return join(scratchpadDir(root, sessionId), TRUNCATED_OUTPUT_DIR);
}

/** `logs/`: pino log files (never stdout). */
export function logsDir(root: string): string {
  return join(root, "logs");
}

/** Every path helper bound to one data root. */
export interface DataPaths {
  readonly root: string;
  projectConfigFile(projectId?: string): string;
  agentDir(agentId: string): string;
  systemConfigFile(agentId: string): string;
  tracesDir(): string;
  traceFile(day: string, sessionId: string, index: number): string;
  scratchpadDir(sessionId: string): string;
  truncatedOutputDir(sessionId: string): string;
  logsDir(): string;
}

export function dataPaths(root: string = resolveDataRoot()): DataPaths {
  return {
    root,
    projectConfigFile: (projectId) => projectConfigFile(root, projectId),
    agentDir: (agentId) => agentDir(root, agentId),
    systemConfigFile: (agentId) => systemConfigFile(root, agentId),
    tracesDir: () => tracesDir(root),
    traceFile: (day, sessionId, index) => traceFile(root, day, sessionId, index),
    scratchpadDir: (sessionId) => scratchpadDir(root, sessionId),
    truncatedOutputDir: (sessionId) => truncatedOutputDir(root, sessionId),
    logsDir: () => logsDir(root),
  };
}

const WINDOWS_DRIVE = /^[A-Za-z]:([\\/]|$)/;
const WINDOWS_UNC = /^\\\\[^\\/?.]/;

/**
 * The one spelling of a path that the model sees (system prompt lines, archive notes,
 * attachment lines): "On Windows it is written with forward slashes … POSIX paths pass through
 * unchanged, and Session paths are ordinary absolute paths (never `\\?\`-prefixed)".
 *
 * A path is treated as a Windows path when `platform` is win32 or when it is shaped like one (a
 * drive letter or a `\\` prefix), so the result does not depend on the host. On POSIX a backslash
 * is an ordinary file name character, which is why POSIX-shaped paths are never touched there.
 */
export function modelVisiblePath(path: string, platform: NodeJS.Platform = process.platform): string {
  const long = /^[\\/]{2}\?[\\/](.*)$/.exec(path) ?? /^[\\/]{2}\.[\\/]([A-Za-z]:.*)$/.exec(path);
  if (long) {
    // `\\?\C:\x` -> `C:/x`; `\\?\UNC\server\share` -> `//server/share`.
    const rest = long[1];
    const unc = /^UNC[\\/](.*)$/i.exec(rest);
    return unc ? `//${slashes(unc[1])}` : slashes(rest);
  }
  if (platform === "win32" || WINDOWS_DRIVE.test(path) || WINDOWS_UNC.test(path)) {
    const converted = slashes(path);
    // Keep the UNC prefix at exactly two slashes, collapse doubled separators elsewhere.
    return converted.startsWith("//")
      ? `//${converted.slice(2).replace(/\/{2,}/g, "/")}`
      : converted.replace(/\/{2,}/g, "/");
  }
  return path;
}

function slashes(path: string): string {
  return path.replace(/\\/g, "/");
}
