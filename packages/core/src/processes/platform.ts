import path from "node:path";

/**
 * Everything that differs between POSIX and Windows for command sessions lives here, as pure
 * functions of the platform (and of injected lookups), so the Windows branches are unit-tested
 * on any machine. The session code only executes the plans these functions return.
 */

export type Platform = NodeJS.Platform;

/** Environment variable that names the shell explicitly (it must accept `-lc <cmd>`, like bash). */
export const SHELL_OVERRIDE_ENV = "PENGUIN_SHELL";

/** The argument vector before the command: a login shell (`bash -lc <cmd>`), as the contract says. */
export const SHELL_COMMAND_FLAGS = ["-lc"] as const;

export type ShellResolution = { ok: true; shell: string } | { ok: false; error: string };

export interface FindOnPathOptions {
  platform: Platform;
  /** The PATH value (`Path` on Windows is passed in by the caller). */
  pathEnv: string | undefined;
  /** PATHEXT on Windows (e.g. ".COM;.EXE;.BAT"); ignored elsewhere. */
  pathExt?: string | undefined;
  /** Whether an executable file exists at this absolute path. */
  isExecutable: (file: string) => boolean;
}

function pathApi(platform: Platform): typeof path.posix {
  return platform === "win32" ? path.win32 : path.posix;
}

/** The first executable called `name` in PATH, or undefined. */
export function findOnPath(name: string, options: FindOnPathOptions): string | undefined {
  const api = pathApi(options.platform);
  const separator = options.platform === "win32" ? ";" : ":";
  const dirs = (options.pathEnv ?? "").split(separator).filter((dir) => dir.length > 0);
  const extensions =
    options.platform === "win32"
      ? ["", ...(options.pathExt ?? ".COM;.EXE;.BAT;.CMD").split(";").filter((ext) => ext.length > 0)]
      : [""];
  for (const dir of dirs) {
    for (const ext of extensions) {
      const candidate = api.join(dir, name + ext);
      if (options.isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

/**
 * `C:\Windows\System32\bash.exe` is the WSL launcher: it runs the command in a Linux VM where the
 * workspace path means nothing, so it never counts as "bash on PATH".
 */
export function isWslLauncher(file: string): boolean {
  const normalized = file.replaceAll("/", "\\").toLowerCase();
  return /\\windows\\(system32|sysnative)\\bash\.exe$/.test(normalized);
}

export interface ResolveShellOptions extends Omit<FindOnPathOptions, "pathEnv" | "pathExt"> {
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * The shell that runs `exec_command`: `PENGUIN_SHELL` when set, else `bash` found on PATH (on
 * Windows: Git Bash or MSYS bash, never the WSL launcher).
 */
export function resolveShell(options: ResolveShellOptions): ShellResolution {
  const override = options.env[SHELL_OVERRIDE_ENV]?.trim();
  if (override) return { ok: true, shell: override };
  const pathEnv = options.platform === "win32" ? (options.env.Path ?? options.env.PATH) : options.env.PATH;
  const bash = findOnPath("bash", {
    platform: options.platform,
    pathEnv,
    pathExt: options.env.PATHEXT,
    isExecutable: (file) =>
      !(options.platform === "win32" && isWslLauncher(file)) && options.isExecutable(file),
  });
  if (bash) return { ok: true, shell: bash };
  const hint = options.platform === "win32" ? "install Git for Windows (Git Bash) or " : "install bash or ";
  return {
    ok: false,
    error: `no bash found on PATH: ${hint}set ${SHELL_OVERRIDE_ENV} to a bash-compatible shell`,
  };
}

/** The argument vector for the shell. */
export function shellArgs(cmd: string): string[] {
  return [...SHELL_COMMAND_FLAGS, cmd];
}

/**
 * Spawn options that make the command its own process group. On POSIX `detached: true` calls
 * setsid(): the shell leads a new session and process group (pgid = its pid) and has no
 * controlling terminal, so programs that open /dev/tty for a password prompt fail at once instead
 * of hanging. On Windows `detached` would open a new console window, so it stays off there.
 */
export function processGroupSpawnOptions(platform: Platform): { detached: boolean; windowsHide: boolean } {
  return { detached: platform !== "win32", windowsHide: true };
}

/** How to deliver one stage of a stop: a signal to the process group, or a helper process. */
export type SignalPlan =
  | { kind: "group-signal"; pgid: number; signal: NodeJS.Signals }
  | { kind: "spawn"; file: string; args: string[] };

function treeKill(pid: number): SignalPlan {
  return { kind: "spawn", file: "taskkill", args: ["/pid", String(pid), "/t", "/f"] };
}

/**
 * Ctrl-C. "On POSIX, Ctrl-C sends SIGINT to the session's process group … On Windows … Ctrl-C
 * degrades to a hard kill of the whole command session tree (taskkill /t /f)."
 */
export function interruptPlan(platform: Platform, pid: number): SignalPlan {
  return platform === "win32" ? treeKill(pid) : { kind: "group-signal", pgid: pid, signal: "SIGINT" };
}

/**
 * Ending a session (eviction, disposal, user interrupt): the polite stage, then the forced stage
 * after a grace period. Windows has no polite stage for a piped tree, so both are taskkill.
 */
export function terminatePlan(platform: Platform, pid: number): { polite: SignalPlan; forced: SignalPlan } {
  if (platform === "win32") return { polite: treeKill(pid), forced: treeKill(pid) };
  return {
    polite: { kind: "group-signal", pgid: pid, signal: "SIGTERM" },
    forced: { kind: "group-signal", pgid: pid, signal: "SIGKILL" },
  };
}
