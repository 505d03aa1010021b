import { type ToolDefinitionConfigInput, toolDefinitionSchemas } from "@penguin/state";
import type { BuiltinTool } from "../environment/types.js";
import { SetupError } from "./setup-error.js";

/**
 * A tool that a program embedding Penguin registers in code. It runs under exactly the same
 * contract as the built-ins: the Environment validates its arguments against `parameters`,
 * frames, times out, truncates and closes every call, approval decides every call by its
 * `permission`, and the trace records it.
 */
export interface CustomToolRegistration {
  name: string;
  definition: Omit<ToolDefinitionConfigInput, "name">;
  /** Yields `partial_tool_call_output` deltas (see `toolOutput`); may return a note, images or a stop reason. */
  execute: BuiltinTool["execute"];
}

/**
 * Turns registrations into tools; a bad definition, a name that a built-in tool of the agent (in
 * `reserved`) or another registration already has, or a missing execute is a `SetupError`.
 */
export function customTools(
  registrations: readonly CustomToolRegistration[],
  reserved: readonly string[],
): BuiltinTool[] {
  const seen = new Set<string>();
  return registrations.map((registration) => {
    const parsed = toolDefinitionSchemas().ToolDefinitionConfigSchema.safeParse({
      ...registration.definition,
      name: registration.name,
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
      throw new SetupError(
        `custom tool "${registration.name}": invalid definition${where}: ${issue.message}`,
        "config",
      );
    }
    if (reserved.includes(registration.name)) {
      throw new SetupError(
        `custom tool "${registration.name}": a built-in tool of the agent has that name; register it under another name (or leave the built-in out of tools.builtin)`,
        "config",
      );
    }
    if (seen.has(registration.name)) {
      throw new SetupError(
        `custom tool "${registration.name}": registered twice; tool names must be unique`,
        "config",
      );
    }
    if (typeof registration.execute !== "function") {
      throw new SetupError(
        `custom tool "${registration.name}": execute must be an async generator function`,
        "config",
      );
    }
    seen.add(registration.name);
    return { name: registration.name, definition: parsed.data, execute: registration.execute };
  });
}
