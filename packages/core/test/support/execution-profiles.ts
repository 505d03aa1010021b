import { accessSync, constants } from "node:fs";
import { join } from "node:path";
import { builtinExecutionProfiles, type ExecutionProfile } from "@penguin/state";
import type { EnvironmentOptions } from "../../src/environment/environment.js";
import { WorkspaceConfinement } from "../../src/environment/workspace-confinement.js";
import { ProcessManager } from "../../src/processes/process-manager.js";

// The two built-in execution profiles for tests that must hold in both: the Environment options a
// sandboxed session gets (commands behind bwrap, file tools confined to the workspace).

/** Why the sandbox tests are skipped on this machine (undefined: bwrap is there). */
export const SANDBOX_SKIP_REASON = bwrapInstalled()
  ? undefined
  : "skipped: bwrap (Debian package bubblewrap) is not installed, so the sandbox profile cannot run here";
if (SANDBOX_SKIP_REASON) console.warn(SANDBOX_SKIP_REASON);

function bwrapInstalled(): boolean {
  if (process.platform !== "linux") return false;
  return (process.env.PATH ?? "").split(":").some((dir) => {
    try {
      accessSync(join(dir, "bwrap"), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

export type ProfileName = "native" | "sandbox";

/** The profiles a suite runs in: both, or native alone when bwrap is missing. */
export const PROFILES: ProfileName[] = SANDBOX_SKIP_REASON ? ["native"] : ["native", "sandbox"];

interface Dirs {
  root: string;
  workspaceDir: string;
  scratchpadDir: string;
}

/** The Environment options of a session of `profile` (nothing beyond the defaults for native). */
export function profileEnvironment(
  profile: ProfileName,
  dirs: Dirs,
  sandbox: ExecutionProfile = builtinExecutionProfiles().sandbox!,
): Partial<EnvironmentOptions> {
  if (profile === "native") return {};
  return {
    processes: new ProcessManager({
      sandbox: { profile: sandbox, workspaceDir: dirs.workspaceDir, dataRoot: join(dirs.root, "data") },
    }),
    confinement: new WorkspaceConfinement(dirs.workspaceDir, dirs.scratchpadDir),
    // As a session of the profile: without network, no tool fetches URLs either.
    offline: !sandbox.network,
  };
}
