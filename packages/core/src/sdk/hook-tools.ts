import type { SystemConfig } from "@penguin/state";
import {
  describeUnknownHookTools,
  type HookWithUnknownTools,
  hooksWithUnknownTools,
  type ToolNameCheck,
} from "../hooks/hook-set.js";
import { SetupError } from "./setup-error.js";

// A hook's `tools` lists the tools it applies to. A name no tool has would make the hook silently
// never run, and a before-hook is often a safety check: so, as for `allowed_tools`, an unknown
// name is a configuration error that stops the agent's sessions from starting.

/** The message for hooks that name unknown tools, with the tools there are. */
export function unknownHookToolsMessage(
  where: string,
  hooks: readonly HookWithUnknownTools[],
  tools: ToolNameCheck,
): string {
  return `${where}: ${describeUnknownHookTools(hooks)}. The tools are: ${tools.describe()}. Fix the name or remove it from the hook's tools.`;
}

/** Throws a SetupError when a hook of the agent's config names a tool the agent does not have. */
export function checkHookTools(agentId: string, config: SystemConfig, tools: ToolNameCheck): void {
  const unknown = hooksWithUnknownTools(config.hooks, tools);
  if (unknown.length === 0) return;
  throw new SetupError(unknownHookToolsMessage(`agent "${agentId}"`, unknown, tools), "config");
}
