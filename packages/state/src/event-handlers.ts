import { join } from "node:path";
import { markdownFiles, parseFrontMatter, readBoundedFile } from "./front-matter-file.js";
import { NAMED_AGENT_NAME_PATTERN } from "./named-agents.js";
import { agentDir } from "./paths.js";

// Event handlers ("`.agents/events/<name>.md` (front matter `type`, optional `agent`, optional
// `delivery: queue | wake`)"): which notices a session takes, and how they reach the model. The
// body is guidance given to the model with each notice (trusted configuration, unlike the notice).
// A notice whose type no handler takes is dropped. A file that cannot be used is reported and left
// out, never fatal.
//
// `type` is a notice type (`deploy.done`: that type only) or a prefix pattern ending in `.*`
// (`deploy.*`: every type that starts with `deploy.`). When several handlers match, the exact one
// wins, then the longest prefix, then the first loaded (the agent's own before the workspace's,
// each folder in name order).

/** The agent's own handlers: `<dataRoot>/agents/<agentId>/events/<name>.md`. */
export const AGENT_EVENT_HANDLERS_FOLDER = "events";
/** A workspace's handlers: `<workspace>/.agents/events/<name>.md`. */
export const WORKSPACE_EVENT_HANDLERS_DIR = join(".agents", "events");
/** "128 KiB per file", as for named agents: guidance, not data. */
export const EVENT_HANDLER_FILE_MAX_BYTES = 128 * 1024;
/** "64 per folder", as for named agents, so a huge folder cannot stall a session's start. */
export const MAX_EVENT_HANDLER_FILES = 64;
/** A notice type: dot-separated words, e.g. `deploy.done`, `job.exited`. */
export const NOTICE_TYPE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/;
/** What `type` of a prefix pattern ends with: `deploy.*`. */
export const NOTICE_TYPE_WILDCARD = ".*";

export type NoticeDelivery = "queue" | "wake";
export const NOTICE_DELIVERIES: readonly NoticeDelivery[] = ["queue", "wake"];
export type EventHandlerSource = "agent" | "workspace";

export interface EventHandler {
  /** The file name without `.md`. */
  name: string;
  /** A notice type, or a prefix pattern ending in `.*`. */
  type: string;
  /** A named agent the notice is for (handled by a child of that agent). */
  agent?: string;
  /** `queue` (default): at the next turn boundary; `wake`: starts a turn when the session is idle. */
  delivery: NoticeDelivery;
  /** The body after the front matter: guidance given to the model with each notice (may be empty). */
  guidance: string;
  file: string;
  source: EventHandlerSource;
}

export type EventHandlerParse =
  | { ok: true; handler: Omit<EventHandler, "name" | "file" | "source"> }
  | { ok: false; error: string };

export function agentEventHandlersDir(dataRoot: string, agentId: string): string {
  return join(agentDir(dataRoot, agentId), AGENT_EVENT_HANDLERS_FOLDER);
}

export function workspaceEventHandlersDir(dir: string): string {
  return join(dir, WORKSPACE_EVENT_HANDLERS_DIR);
}

/** Whether `type` (a notice's) is taken by a handler's `pattern`. */
export function noticeTypeMatches(pattern: string, type: string): boolean {
  if (!pattern.endsWith(NOTICE_TYPE_WILDCARD)) return pattern === type;
  const prefix = pattern.slice(0, -1);
  return type.startsWith(prefix) && type.length > prefix.length;
}

/** Checks a handler's `type`: a notice type, or one followed by `.*`. */
function handlerTypeOf(value: unknown): { ok: true; type: string } | { ok: false; error: string } {
  const hint = "a notice type such as deploy.done, or a prefix pattern such as deploy.*";
  if (typeof value !== "string" || value.trim() === "")
    return { ok: false, error: `type is missing: give ${hint}` };
  const type = value.trim();
  const base = type.endsWith(NOTICE_TYPE_WILDCARD) ? type.slice(0, -NOTICE_TYPE_WILDCARD.length) : type;
  if (!NOTICE_TYPE_PATTERN.test(base)) {
    return { ok: false, error: `type ${JSON.stringify(value)} is not ${hint}` };
  }
  return { ok: true, type };
}

/** Parses a handler file: YAML front matter (`type`, optional `agent` and `delivery`), then guidance. */
export function parseEventHandlerFile(text: string): EventHandlerParse {
  const parsed = parseFrontMatter(text, {
    unclosed: "unclosed front matter: the --- block at the top has no closing --- line",
    missing: "no front matter: an event handler's file must start with a --- block giving its type",
  });
  if (!parsed.ok) return parsed;
  const { type, agent, delivery } = parsed.fields;
  const checked = handlerTypeOf(type);
  if (!checked.ok) return checked;
  if (agent !== undefined && (typeof agent !== "string" || !NAMED_AGENT_NAME_PATTERN.test(agent))) {
    return { ok: false, error: `agent must be a named agent's name, got ${JSON.stringify(agent)}` };
  }
  if (delivery !== undefined && !NOTICE_DELIVERIES.includes(delivery as NoticeDelivery)) {
    return { ok: false, error: `delivery must be queue or wake, got ${JSON.stringify(delivery)}` };
  }
  return {
    ok: true,
    handler: {
      type: checked.type,
      ...(typeof agent === "string" ? { agent } : {}),
      delivery: (delivery as NoticeDelivery | undefined) ?? "queue",
      guidance: parsed.body.trim(),
    },
  };
}

export interface EventHandlerProblem {
  file: string;
  message: string;
}

export interface EventHandlerDiscovery {
  handlers: EventHandler[];
  problems: EventHandlerProblem[];
}

/**
 * The handlers in `dir` (`<name>.md` files), in bytewise name order. A missing folder has none; a
 * file that cannot be read or parsed is reported and left out, and so are the files beyond
 * `MAX_EVENT_HANDLER_FILES`.
 */
export async function discoverEventHandlers(
  dir: string,
  source: EventHandlerSource,
): Promise<EventHandlerDiscovery> {
  const result: EventHandlerDiscovery = { handlers: [], problems: [] };
  const names = await markdownFiles(dir);
  if (!names) return result;
  for (const entry of names.slice(0, MAX_EVENT_HANDLER_FILES)) {
    const file = join(dir, entry);
    const name = entry.slice(0, -".md".length);
    if (!NAMED_AGENT_NAME_PATTERN.test(name)) {
      result.problems.push({
        file,
        message: `the file name must be 1-64 letters, digits, '.', '_' or '-' (starting with a letter or digit) before .md`,
      });
      continue;
    }
    const read = await readBoundedFile(file, EVENT_HANDLER_FILE_MAX_BYTES, "an event handler's file");
    if (!read.ok) {
      result.problems.push({ file, message: `cannot read it: ${read.error}` });
      continue;
    }
    const parsed = parseEventHandlerFile(read.text);
    if (!parsed.ok) {
      result.problems.push({ file, message: parsed.error });
      continue;
    }
    result.handlers.push({ ...parsed.handler, name, file, source });
  }
  if (names.length > MAX_EVENT_HANDLER_FILES) {
    result.problems.push({
      file: dir,
      message: `${names.length - MAX_EVENT_HANDLER_FILES} of its ${names.length} files were left out (from ${JSON.stringify(names[MAX_EVENT_HANDLER_FILES])} on, in name order): at most ${MAX_EVENT_HANDLER_FILES} event handlers are read per folder`,
    });
  }
  return result;
}
