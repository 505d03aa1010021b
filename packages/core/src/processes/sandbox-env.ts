import { mkdirSync } from "node:fs";
import { join } from "node:path";

// The environment a sandboxed command starts with. A server's or CLI's environment holds its own
// secrets (API keys, tokens, database URLs); natively every command inherits them, in a sandbox
// only the variables below pass.

/** Variables a command needs to find programs and speak the user's language; nothing secret. */
const SAFE_VARIABLES = new Set([
  "PATH",
  "LANG",
  "LANGUAGE",
  "TZ",
  "USER",
  "LOGNAME",
  "SHELL",
  "PENGUIN_SHELL",
]);
/** Locale settings (`LC_ALL`, `LC_CTYPE`, …). */
const SAFE_PREFIX = "LC_";

/**
 * HOME inside the sandbox: the private tmpfs `/tmp`, writable and discarded with the command (the
 * host user's home is hidden, and tools such as git and npm want a HOME they can write).
 */
export const SANDBOX_HOME_ENV: Readonly<Record<string, string>> = { HOME: "/tmp" };

/** The inherited variables a sandboxed command keeps. */
export function sandboxBaseEnv(
  inherited: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
  const kept: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(inherited)) {
    if (SAFE_VARIABLES.has(name) || name.startsWith(SAFE_PREFIX)) kept[name] = value;
  }
  return kept;
}

/**
 * The HOME of a sandboxed session's login-environment capture, which runs outside the sandbox:
 * an empty private folder in the scratchpad, so the capture reads the system profile only, never
 * the host user's files nor a profile the sandbox could have written.
 */
export function captureHome(scratchpadDir: string): string {
  const home = join(scratchpadDir, "sandbox-capture-home");
  mkdirSync(home, { recursive: true, mode: 0o700 });
  return home;
}
