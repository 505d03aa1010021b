import { onFirstUse } from "@penguin/protocol";
import { z } from "zod";
import { DEFAULT_EXECUTION_PROFILE, execProfileSchemas, executionProfilesOf } from "./exec-profiles.js";

// `exec` in system_config.yaml: how command tools (exec_command, run_command) start their shell.

/**
 * `exec.login_environment`: `once` captures the login environment (the profile's exported
 * variables and functions) when a session starts and runs each command with `bash -c` sourcing
 * it; `refresh` does the same and captures again after a profile file changed; `always` runs
 * every command as a login shell (`bash -lc`, the profile sourced each time); `none` runs
 * `bash -c` with no profile at all.
 */
export const LOGIN_ENVIRONMENT_MODES = ["once", "refresh", "always", "none"] as const;
export type LoginEnvironmentMode = (typeof LOGIN_ENVIRONMENT_MODES)[number];
/** "Capture the login environment once per session". */
export const DEFAULT_LOGIN_ENVIRONMENT_MODE: LoginEnvironmentMode = "once";

/** The schema of `exec`, built on the first call (configuration is checked only when read). */
export const execSettingsSchemas = onFirstUse(() => {
  const ExecSettingsSchema = z
    .strictObject({
      login_environment: z.enum(LOGIN_ENVIRONMENT_MODES).default(DEFAULT_LOGIN_ENVIRONMENT_MODE),
      /** The execution profile of a session that does not choose one (see exec-profiles.ts). */
      profile: z.string().min(1).default(DEFAULT_EXECUTION_PROFILE),
      /** Profiles besides (or replacing) the built-in `native` and `sandbox`. */
      profiles: execProfileSchemas().ExecutionProfilesSchema,
    })
    .superRefine((exec, ctx) => {
      const names = Object.keys(executionProfilesOf(exec.profiles));
      if (!names.includes(exec.profile)) {
        ctx.addIssue({
          code: "custom",
          path: ["profile"],
          message: `unknown execution profile "${exec.profile}"; the profiles are: ${names.join(", ")}`,
        });
      }
    });
  return { ExecSettingsSchema };
});
type Schemas = ReturnType<typeof execSettingsSchemas>;
export type ExecSettings = z.output<Schemas["ExecSettingsSchema"]>;
