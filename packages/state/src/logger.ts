import { chmodSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Level, Logger, LoggerOptions } from "pino";
import { logsDir, resolveDataRoot } from "./paths.js";
import { ensurePrivateDirSync, PRIVATE_FILE_MODE } from "./private-files.js";

export const DEFAULT_LOG_FILE_NAME = "penguin.log";
export const DEFAULT_LOG_LEVEL: Level = "info";
export const REDACTED = "[redacted]";

/** Field names whose values never reach a log file, at any of the first four levels of nesting. */
export const REDACTED_FIELD_NAMES = [
  "apiKey",
  "api_key",
  "apikey",
  "x-api-key",
  "authorization",
  "Authorization",
  "proxy-authorization",
  "cookie",
  "Cookie",
  "set-cookie",
  "token",
  "access_token",
  "refresh_token",
  "id_token",
  "password",
  "passwd",
  "secret",
  "client_secret",
] as const;

const REDACT_DEPTH = 4;

type Pino = typeof import("pino").default;

/** pino (CommonJS) is required when a logger is first made: most runs log nothing. */
function loadPino(): Pino {
  return createRequire(import.meta.url)("pino") as Pino;
}

function redactionPaths(): string[] {
  const paths: string[] = [];
  for (const name of REDACTED_FIELD_NAMES) {
    const key = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : `["${name}"]`;
    for (let depth = 0; depth < REDACT_DEPTH; depth++) {
      const prefix = "*.".repeat(depth);
      paths.push(key.startsWith("[") ? `${prefix.replace(/\.$/, "")}${key}` : `${prefix}${key}`);
    }
  }
  return paths;
}

/** Replaces every occurrence of each secret value in `text` (longest first) with `[redacted]`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret) out = out.split(secret).join(REDACTED);
  }
  return out;
}

function redactDeep(value: unknown, secrets: readonly string[], seen: WeakSet<object>): unknown {
  if (typeof value === "string") return redactSecrets(value, secrets);
  if (value instanceof Error) {
    return {
      type: value.name,
      message: redactSecrets(value.message, secrets),
      stack: redactSecrets(value.stack ?? "", secrets),
    };
  }
  if (value === null || typeof value !== "object" || seen.has(value)) return value;
  seen.add(value);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, secrets, seen));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, redactDeep(item, secrets, seen)]),
  );
}

export interface CreateLoggerOptions {
  /** The log file; default `<data root>/logs/penguin.log`. */
  file?: string;
  /** Data root for the default file; default `resolveDataRoot()`. */
  root?: string;
  level?: Level | "silent";
  /** Secret values (API keys …) scrubbed from every string the logger writes, wherever they appear. */
  secrets?: readonly string[];
}

/**
 * A pino logger that writes JSON lines to a file (created 0600, its folder 0700), never to
 * stdout, where it would mix with the CLI's output. Values of key-, token-, cookie- and
 * password-like fields are replaced with `[redacted]`, and so is any configured secret value
 * found in a message or field. Writes are synchronous, so a line is on disk when the call returns
 * and nothing is lost when the process exits.
 */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const file = options.file ?? join(logsDir(options.root ?? resolveDataRoot()), DEFAULT_LOG_FILE_NAME);
  ensurePrivateDirSync(dirname(file));
  const pino = loadPino();
  const destination = pino.destination({ dest: file, sync: true, append: true, mode: PRIVATE_FILE_MODE });
  // The mode above applies when the file is created; an older, wider file is tightened too.
  if (process.platform !== "win32") chmodSync(file, PRIVATE_FILE_MODE);
  const secrets = (options.secrets ?? []).filter((secret) => secret.length > 0);
  const hooks: LoggerOptions["hooks"] =
    secrets.length === 0
      ? {}
      : {
          logMethod(args, method) {
            const scrubbed = args.map((arg) => redactDeep(arg, secrets, new WeakSet()));
            method.apply(this, scrubbed as Parameters<typeof method>);
          },
        };
  return pino(
    {
      level: options.level ?? DEFAULT_LOG_LEVEL,
      redact: { paths: redactionPaths(), censor: REDACTED },
      hooks,
    },
    destination,
  );
}
