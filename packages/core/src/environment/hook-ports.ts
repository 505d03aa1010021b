import type { OmniMessage, StopReason, ToolCallPayload } from "@penguin/protocol";

// The hooks of a session as the Environment and its tools see them. The hooks themselves live in
// hooks/, above the Environment: these ports are what the Environment receives (dependency
// inversion), so that environment/ imports nothing from the folders built on it.

/** When a hook runs: "before it (may deny)" or "after it (see the result)". */
export type HookPhase = "before_tool" | "after_tool";

/** A hook whose `tools` names tools the session does not have. */
export interface HookWithUnknownTools {
  /** `<name>`, or `workspace:<name>` for a workspace's hook. */
  label: string;
  phase: HookPhase;
  unknown: string[];
}

/** What reading a directory's `.agents/hooks.yaml` did. */
export type WorkspaceHooksLoad =
  | { status: "none" }
  | { status: "ignored"; file: string }
  /** `rejected`: hooks left out because their `tools` name a tool the session does not have. */
  | { status: "loaded"; file: string; labels: string[]; rejected: HookWithUnknownTools[] }
  | { status: "invalid"; file: string; message: string };

/** The session's hook set, as change_directory uses it: it adds a directory's hooks (with the opt-in). */
export interface DirectoryHooks {
  /** Reads `<dir>/.agents/hooks.yaml` and adds its hooks when the user opted in. */
  loadFrom(dir: string): Promise<WorkspaceHooksLoad>;
  /** The session's tool names, for a message about a hook that names another. */
  describeTools(): string | undefined;
}

/** What the after-hooks of one call produced. */
export interface AfterHooksResult {
  events: OmniMessage[];
  /** Blocks for the model, from hooks with `show_output`. */
  shown: string[];
}

/** The session's hook runner, as the Environment uses it: after-hooks run once a call's output is complete. */
export interface AfterCallHooks {
  readonly hooks: DirectoryHooks;
  after(
    call: OmniMessage<ToolCallPayload>,
    output: string,
    stopReason: StopReason,
    signal?: AbortSignal,
  ): Promise<AfterHooksResult>;
}
