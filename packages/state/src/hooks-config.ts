import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { onFirstUse } from "@penguin/protocol";
import { z } from "zod";
import { configDefault } from "./config-defaults.js";
import { type ConfigResult, ioError, parseYamlConfig } from "./config-errors.js";

// Hooks around tool calls ("configured commands that run before a call (may deny it, with a
// reason the model reads) and after it (see the result)"): the `hooks` section of
// system_config.yaml, and the workspace's own `.agents/hooks.yaml`, which runs only when the
// user opts in with `hooks.allow_workspace_hooks`.

/** "time and output limits": how long one hook may run before it is killed. */
export const DEFAULT_HOOK_TIMEOUT_MS = 10_000;
/** How much of a hook's output (stdout and stderr together) is kept; the rest is counted. */
export const DEFAULT_HOOK_MAX_OUTPUT_CHARS = 4_000;
/** "a failing before-hook denies by default". */
export const DEFAULT_HOOK_ON_ERROR = "deny";
/** Workspace-provided hooks, read only with `hooks.allow_workspace_hooks: true`. */
export const WORKSPACE_HOOKS_FILE = join(".agents", "hooks.yaml");

const HOOK_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** The schemas of hooks, built on the first call (configuration is checked only when read). */
export const hookSchemas = onFirstUse(() => {
  /** One hook: a shell command run with the call as JSON on stdin. */
  const HookEntrySchema = z.strictObject({
    name: z.string().regex(HOOK_NAME, "a hook name is 1-64 letters, digits, '_', '.' or '-'"),
    /** Run with `bash -c`, in the directory the hook comes from. */
    command: z.string().min(1, "a hook needs a command"),
    /** The tools it applies to; absent: every tool. */
    tools: z
      .array(z.string().min(1))
      .min(1, "list at least one tool, or remove the key for every tool")
      .optional(),
    timeout_ms: z.number().int().positive().default(DEFAULT_HOOK_TIMEOUT_MS),
    max_output_chars: z.number().int().positive().default(DEFAULT_HOOK_MAX_OUTPUT_CHARS),
    /** A before-hook that fails (crash, timeout, exit code other than 0 and 2): deny or allow the call. */
    on_error: z.enum(["deny", "allow"]).default(DEFAULT_HOOK_ON_ERROR),
    /** An after-hook's output is traced; with true it is also appended to the output the model reads. */
    show_output: z.boolean().default(false),
  });

  const hookList = () =>
    z
      .array(HookEntrySchema)
      .superRefine((list, ctx) => {
        const seen = new Set<string>();
        list.forEach((hook, index) => {
          if (seen.has(hook.name))
            ctx.addIssue({
              code: "custom",
              path: [index, "name"],
              message: `duplicate hook name "${hook.name}"`,
            });
          seen.add(hook.name);
        });
      })
      .default([]);

  /** `hooks` in system_config.yaml. */
  const HooksSectionSchema = z.strictObject({
    before_tool: hookList(),
    after_tool: hookList(),
    /** Run the hooks of `<workspace>/.agents/hooks.yaml` (and of directories change_directory enters). */
    allow_workspace_hooks: z.boolean().default(false),
  });

  /** `<dir>/.agents/hooks.yaml`: the same lists, without the opt-in switch (only the user can opt in). */
  const WorkspaceHooksFileSchema = z.strictObject({
    before_tool: hookList(),
    after_tool: hookList(),
  });
  return { HookEntrySchema, HooksSectionSchema, WorkspaceHooksFileSchema };
});
type Schemas = ReturnType<typeof hookSchemas>;
export type HookEntry = z.output<Schemas["HookEntrySchema"]>;
export type HookEntryInput = z.input<Schemas["HookEntrySchema"]>;
export type HooksSection = z.output<Schemas["HooksSectionSchema"]>;
export type WorkspaceHooksFile = z.output<Schemas["WorkspaceHooksFileSchema"]>;

export function defaultHooksSection(): HooksSection {
  return configDefault("hooks");
}

export function parseWorkspaceHooks(text: string, fileName: string): ConfigResult<WorkspaceHooksFile> {
  return parseYamlConfig(text, fileName, hookSchemas().WorkspaceHooksFileSchema);
}

/**
 * Reads `<dir>/.agents/hooks.yaml`: `undefined` when there is none, otherwise the parsed file or
 * every problem in it.
 */
export async function loadWorkspaceHooks(dir: string): Promise<ConfigResult<WorkspaceHooksFile> | undefined> {
  const file = join(dir, WORKSPACE_HOOKS_FILE);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return { ok: false, errors: [ioError(file, error)] };
  }
  return parseWorkspaceHooks(text, file);
}
