import type { HookSet } from "../hooks/hook-set.js";
import type { ConfiguredNames } from "../mcp/configured-names.js";

/**
 * The tool names a session's configuration gives, as they are when its MCP servers connect: the
 * agent's `allowed_tools` and the `tools` of every hook loaded so far (the agent's and, when the
 * user opted in, the workspace's).
 */
export function configuredToolNames(
  allowedTools: readonly string[] | undefined,
  hooks: HookSet,
): ConfiguredNames {
  const before = hooks.all("before_tool");
  return {
    ...(allowedTools ? { allowedTools } : {}),
    hooks: [...before, ...hooks.all("after_tool")],
    beforeHooks: new Set(before.map((hook) => hook.label)),
  };
}
