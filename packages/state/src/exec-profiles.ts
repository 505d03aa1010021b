import { isAbsolute } from "node:path";
import { onFirstUse } from "@penguin/protocol";
import { z } from "zod";
import { configDefault } from "./config-defaults.js";

// `exec.profile` and `exec.profiles` in system_config.yaml: where a session's tools run.

/**
 * "A session has an execution profile: `native` (today: the server's or CLI's user) or `sandbox`:
 * commands and file tools run inside bubblewrap". The two built-in profiles carry these names;
 * a config may define more of either kind, or redefine these two.
 */
export const NATIVE_PROFILE = "native";
export const SANDBOX_PROFILE = "sandbox";
/** The profile a session gets when neither its creator nor `exec.profile` names one. */
export const DEFAULT_EXECUTION_PROFILE = NATIVE_PROFILE;

export const EXECUTION_PROFILE_KINDS = ["native", "sandbox"] as const;
export type ExecutionProfileKind = (typeof EXECUTION_PROFILE_KINDS)[number];

/** A profile name: what a CLI flag, an API field and a web form carry. */
const PROFILE_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** The schemas of `exec.profiles`, built on the first call (configuration is checked only when read). */
export const execProfileSchemas = onFirstUse(() => {
  const absolutePath = z
    .string()
    .min(1)
    .refine((value) => isAbsolute(value), { message: "must be an absolute path" })
    .refine((value) => !value.includes("\0"), { message: "must not contain a NUL character" });

  const positiveInteger = (what: string) =>
    z.number().int(`${what} must be a whole number`).positive(`${what} must be at least 1`).optional();

  /** Resource limits of a sandboxed command, applied with `ulimit` before the command starts. */
  const ExecutionLimitsSchema = z.strictObject({
    /** Address space of each process (`ulimit -v`), in MiB. */
    memory_mb: positiveInteger("memory_mb"),
    /** Processes of the user (`ulimit -u`; the kernel counts the user's processes, not the sandbox's). */
    processes: positiveInteger("processes"),
    /** Largest file a process may write (`ulimit -f`), in MiB. */
    file_size_mb: positiveInteger("file_size_mb"),
    /** CPU time of each process (`ulimit -t`), in seconds. */
    cpu_seconds: positiveInteger("cpu_seconds"),
  });

  const ExecutionProfileSchema = z.strictObject({
    kind: z.enum(EXECUTION_PROFILE_KINDS),
    /** Whether a sandboxed command may use the network (default: no network at all, loopback included). */
    network: z.boolean().default(false),
    /** Extra paths a sandboxed command sees read-only (the rest of `/` is read-only anyway, minus the hidden parts). */
    read_only_paths: z.array(absolutePath).default([]),
    /** Extra paths a sandboxed command may change, besides the workspace (`/` makes the file system writable). */
    writable_paths: z.array(absolutePath).default([]),
    /** Paths a sandboxed command sees as empty folders (an empty tmpfs over each). */
    hidden_paths: z.array(absolutePath).default([]),
    limits: ExecutionLimitsSchema.default({}),
  });

  const ExecutionProfilesSchema = z
    .record(z.string(), ExecutionProfileSchema)
    .superRefine((profiles, ctx) => {
      for (const name of Object.keys(profiles)) {
        if (PROFILE_NAME.test(name)) continue;
        ctx.addIssue({
          code: "custom",
          path: [name],
          message: `profile name "${name}": use 1-64 lowercase letters, digits, '-' or '_', starting with a letter or digit`,
        });
      }
    })
    .default({});
  return { ExecutionLimitsSchema, ExecutionProfileSchema, ExecutionProfilesSchema };
});
type Schemas = ReturnType<typeof execProfileSchemas>;
export type ExecutionLimits = z.output<Schemas["ExecutionLimitsSchema"]>;
export type ExecutionProfile = z.output<Schemas["ExecutionProfileSchema"]>;

/** The built-in profiles, as if written in the config (a config's entry of the same name replaces one). */
export function builtinExecutionProfiles(): Record<string, ExecutionProfile> {
  return {
    [NATIVE_PROFILE]: configDefault("nativeProfile"),
    [SANDBOX_PROFILE]: configDefault("sandboxProfile"),
  };
}

/** A profile is "the host user's full access" when nothing stands between its commands and the host. */
export function isFullHostAccess(profile: ExecutionProfile): boolean {
  return profile.kind === "native" || (profile.network && profile.writable_paths.includes("/"));
}

/** Every profile a config offers: the built-in ones, then the config's own (which may replace them). */
export function executionProfilesOf(
  profiles: Record<string, ExecutionProfile>,
): Record<string, ExecutionProfile> {
  return { ...builtinExecutionProfiles(), ...profiles };
}

export type ExecutionProfileChoice =
  | { ok: true; name: string; profile: ExecutionProfile }
  | { ok: false; error: string };

/** The profile called `name` among a config's profiles, or a message naming the ones there are. */
export function chooseExecutionProfile(
  profiles: Record<string, ExecutionProfile>,
  name: string,
): ExecutionProfileChoice {
  const all = executionProfilesOf(profiles);
  const profile = Object.hasOwn(all, name) ? all[name] : undefined;
  if (profile) return { ok: true, name, profile };
  return {
    ok: false,
    error: `unknown execution profile "${name}"; the profiles are: ${Object.keys(all).join(", ")}`,
  };
}
