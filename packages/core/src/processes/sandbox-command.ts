import { existsSync, statSync } from "node:fs";
import type { ExecutionLimits, ExecutionProfile } from "@penguin/state";

// How a command of a `sandbox` execution profile starts: the same shell and flags as natively,
// behind bubblewrap (`bwrap`) with a mount policy, namespaces and resource limits.

/** Debian's `bubblewrap` package installs this program. */
export const BWRAP_PROGRAM = "bwrap";

/**
 * Folders hidden (an empty tmpfs over each, when it exists) because they hold the host user's
 * secrets: home folders (keys, tokens, shell histories) and per-user runtime sockets.
 */
export const HIDDEN_HOST_FOLDERS = ["/home", "/root", "/run/user"] as const;

/** What a sandboxed command sees, besides the profile itself. */
export interface SandboxPlacement {
  profile: ExecutionProfile;
  /** The session's workspace: bound read-write. */
  workspaceDir: string;
  /** Penguin's data root (traces, keys, other sessions' scratchpads): hidden. */
  dataRoot: string;
}

/** The program and arguments that run `shell args…` in `cwd` inside the sandbox. */
export interface SandboxLaunch {
  file: string;
  args: string[];
}

/**
 * The bwrap argument vector. Mounts apply in order, a later one over an earlier one:
 * 1. `/` read-only (read-write only when the profile lists `/` as writable), a fresh `/dev` and
 *    `/proc` (of the new PID namespace);
 * 2. tmpfs over the host's home folders, `/run/user`, the data root, and a private `/tmp`;
 * 3. the profile's read-only paths, then its writable paths, then the workspace (read-write),
 *    then `readOnlyFiles` (the captured login environment, which lives in the hidden data root);
 * 4. the profile's hidden paths last, so they hide even what lies inside the workspace.
 * Namespaces: PID, IPC and UTS always, the network unless the profile allows it; every capability
 * is dropped (a root Penguin would otherwise keep the power to unmount what hides the host);
 * `--die-with-parent` ends the command when bwrap dies. No `--new-session`: the command stays in
 * the process group Penguin signals, so Ctrl-C, timeouts and kills reach it as natively, and once
 * bwrap's PID 1 dies the kernel ends everything left in the namespace (even a `setsid` daemon).
 */
export function bwrapArguments(
  placement: SandboxPlacement,
  command: { shell: string; args: readonly string[]; cwd: string; readOnlyFiles?: readonly string[] },
): string[] {
  const { profile } = placement;
  const writableRoot = profile.writable_paths.includes("/");
  const args: string[] = [
    writableRoot ? "--bind" : "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
  ];
  for (const folder of [...HIDDEN_HOST_FOLDERS, placement.dataRoot]) {
    if (isDirectory(folder)) args.push("--tmpfs", folder);
  }
  args.push("--tmpfs", "/tmp");
  for (const path of profile.read_only_paths) args.push("--ro-bind-try", path, path);
  for (const path of profile.writable_paths) if (path !== "/") args.push("--bind-try", path, path);
  args.push("--bind", placement.workspaceDir, placement.workspaceDir);
  for (const file of command.readOnlyFiles ?? []) args.push("--ro-bind-try", file, file);
  for (const path of profile.hidden_paths) args.push(...hideArguments(path));
  args.push("--unshare-pid", "--unshare-ipc", "--unshare-uts");
  if (!profile.network) args.push("--unshare-net");
  args.push("--cap-drop", "ALL", "--die-with-parent", "--chdir", command.cwd, "--");
  args.push(...limitedCommand(profile.limits, command.shell, command.args));
  return args;
}

/** A folder gets an empty tmpfs; a file is replaced by the empty /dev/null; a missing path needs nothing. */
function hideArguments(path: string): string[] {
  if (!existsSync(path)) return [];
  return isDirectory(path) ? ["--tmpfs", path] : ["--ro-bind", "/dev/null", path];
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** MiB to the 1024-byte blocks of bash's `ulimit -v` and `ulimit -f` (dash counts -f in 512 bytes). */
const KIB_PER_MIB = 1024;

/**
 * `shell args…`, or `shell -c 'ulimit …; exec "$@"' sh shell args…` when the profile sets limits:
 * the same (bash) shell sets them, then replaces itself with the command's shell, so no extra
 * process stays and the units are bash's.
 */
export function limitedCommand(limits: ExecutionLimits, shell: string, args: readonly string[]): string[] {
  const settings: string[] = [];
  if (limits.memory_mb !== undefined) settings.push(`ulimit -v ${limits.memory_mb * KIB_PER_MIB}`);
  if (limits.processes !== undefined) settings.push(`ulimit -u ${limits.processes}`);
  if (limits.file_size_mb !== undefined) settings.push(`ulimit -f ${limits.file_size_mb * KIB_PER_MIB}`);
  if (limits.cpu_seconds !== undefined) settings.push(`ulimit -t ${limits.cpu_seconds}`);
  if (settings.length === 0) return [shell, ...args];
  return [shell, "-c", `${settings.join(" && ")} && exec "$@"`, "sh", shell, ...args];
}
