import type { SessionMetaPayload } from "@penguin/protocol";
import {
  chooseExecutionProfile,
  type ExecutionProfile,
  NATIVE_PROFILE,
  type SystemConfig,
} from "@penguin/state";
import { WorkspaceConfinement } from "../environment/workspace-confinement.js";
import type { SandboxPlacement } from "../processes/sandbox-command.js";
import { SetupError } from "./setup-error.js";

// A session's execution profile: chosen when it is created (or recorded in its session_meta and
// kept on resume), inherited by its children, and turned into the sandbox its commands run in
// and the confinement of its file tools.

/** A profile by name, with its settings as the config defined them when the session started. */
export interface ChosenExecutionProfile {
  name: string;
  profile: ExecutionProfile;
}

/** The profile `name` names (else the config's `exec.profile`), or a SetupError naming the profiles. */
export function executionProfileFor(config: SystemConfig, name: string | undefined): ChosenExecutionProfile {
  const choice = chooseExecutionProfile(config.exec.profiles, name ?? config.exec.profile);
  if (!choice.ok) throw new SetupError(choice.error, "config");
  return { name: choice.name, profile: choice.profile };
}

/**
 * A resumed session keeps its own profile: the one its session_meta records (a trace from before
 * profiles ran natively). A profile the config no longer defines is refused, never replaced.
 */
export function recordedExecutionProfile(
  config: SystemConfig,
  meta: Pick<SessionMetaPayload, "session_id"> & { execution_profile?: unknown },
): ChosenExecutionProfile {
  const recorded = typeof meta.execution_profile === "string" ? meta.execution_profile : NATIVE_PROFILE;
  const choice = chooseExecutionProfile(config.exec.profiles, recorded);
  if (!choice.ok) {
    throw new SetupError(
      `session ${meta.session_id} runs with the execution profile "${recorded}", which the agent's config no longer defines: ${choice.error}`,
      "config",
    );
  }
  return { name: choice.name, profile: choice.profile };
}

/** Where a sandboxed session's commands run; absent for a native profile. */
export function sandboxPlacementOf(
  chosen: ChosenExecutionProfile,
  where: { workspaceDir: string; dataRoot: string },
): SandboxPlacement | undefined {
  if (chosen.profile.kind !== "sandbox") return undefined;
  return { profile: chosen.profile, workspaceDir: where.workspaceDir, dataRoot: where.dataRoot };
}

/** What a sandboxed session's file tools may reach; absent for a native profile (any path, as before). */
export function fileConfinementOf(
  chosen: ChosenExecutionProfile,
  where: { workspaceDir: string; scratchpadDir: string },
): WorkspaceConfinement | undefined {
  if (chosen.profile.kind !== "sandbox") return undefined;
  return new WorkspaceConfinement(where.workspaceDir, where.scratchpadDir);
}
