import { type Platform, resolveShell, SHELL_OVERRIDE_ENV, type ShellResolution } from "./platform.js";

/**
 * The shell of one manager's commands, looked up on PATH once rather than before every command:
 * a lookup tries each PATH folder in turn (one `access` call each, eight on a common PATH), and
 * a session runs many commands with the same PATH. The shell found is kept while the variables
 * that choose it are unchanged and it is still an executable file (one call); otherwise the
 * lookup runs again, so a PATH changed by the embedder, or a shell removed, is followed.
 */
export class ShellLookup {
  private found: { key: string; shell: string } | undefined;

  constructor(
    private readonly platform: Platform,
    private readonly isExecutable: (file: string) => boolean,
  ) {}

  resolve(env: Readonly<Record<string, string | undefined>>): ShellResolution {
    const key = [env[SHELL_OVERRIDE_ENV], env.PATH, env.Path, env.PATHEXT]
      .map((value) => value ?? "")
      .join("\0");
    const found = this.found;
    if (found !== undefined && found.key === key && this.isExecutable(found.shell)) {
      return { ok: true, shell: found.shell };
    }
    const shell = resolveShell({ platform: this.platform, env, isExecutable: this.isExecutable });
    this.found = shell.ok ? { key, shell: shell.shell } : undefined;
    return shell;
  }
}
