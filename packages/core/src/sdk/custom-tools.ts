import { type ToolDefinitionConfigInput, ToolDefinitionConfigSchema } from "@penguin/state";
import type { BuiltinTool } from "../environment/types.js";

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

/** Turns registrations into tools, with clear errors for bad definitions and duplicate names. */
export function customTools(
  registrations: readonly CustomToolRegistration[],
  reserved: readonly string[],
): BuiltinTool[] {
  const seen = new Set<string>();
  return registrations.map((registration) => {
    const parsed = ToolDefinitionConfigSchema.safeParse({
      ...registration.definition,
      name: registration.name,
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
      throw new TypeError(`custom tool "${registration.name}": invalid definition${where}: ${issue.message}`);
    }
    if (reserved.includes(registration.name) || seen.has(registration.name)) {
      throw new TypeError(`custom tool "${registration.name}": the name is already taken by another tool`);
    }
    if (typeof registration.execute !== "function") {
      throw new TypeError(`custom tool "${registration.name}": execute must be an async generator function`);
    }
    seen.add(registration.name);
    return { name: registration.name, definition: parsed.data, execute: registration.execute };
  });
}
