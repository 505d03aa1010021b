import {
  DEFAULT_AGENT_ID,
  ensureDefaultAgent,
  executionProfilesOf,
  formatConfigErrors,
  isFullHostAccess,
  loadAgent,
} from "@penguin/state";
import { z } from "zod";
import { jsonError } from "../../http/errors.js";
import { SafeIdSchema } from "../../http/ids.js";
import { type AnyRouteSpec, defineRoute, errorResponse } from "../../http/route.js";
import type { SessionRoutesOptions } from "./session-route.js";

// What the create form offers as execution profiles, and which of them hand a session's tools
// the server user's whole access.

const ExecutionProfilesQuerySchema = z.object({
  agent_id: SafeIdSchema.optional().describe('The agent whose exec.profiles are listed; default "default"'),
});

const ExecutionProfileSchema = z.object({
  name: z.string().describe("What POST /api/sessions takes as execution_profile"),
  kind: z.enum(["native", "sandbox"]),
  network: z.boolean().describe("Whether a sandboxed command may use the network (native: always)"),
  full_host_access: z
    .boolean()
    .describe(
      "true when its tools act with the server user's whole access: native, or a sandbox with the network and a writable /",
    ),
});

const ExecutionProfilesResponseSchema = z.object({
  profiles: z.array(ExecutionProfileSchema).describe("The built-in native and sandbox, then the agent's own"),
  default_profile: z
    .string()
    .describe("The profile a session gets when it names none (the agent's exec.profile)"),
});

export function executionProfileRoutes(options: SessionRoutesOptions): AnyRouteSpec[] {
  const { manager } = options;
  const list = defineRoute({
    method: "get",
    path: "/api/execution-profiles",
    summary: "The execution profiles a session of an agent may run under, flagging full host access",
    tag: "sessions",
    access: "user",
    query: ExecutionProfilesQuerySchema,
    responses: {
      200: { description: "The profiles", schema: ExecutionProfilesResponseSchema },
      400: errorResponse("invalid_config: the agent is unknown or its system_config.yaml is invalid"),
    },
    async handle(c, { query }) {
      const agentId = query.agent_id ?? DEFAULT_AGENT_ID;
      const loaded =
        agentId === DEFAULT_AGENT_ID
          ? await ensureDefaultAgent(manager.dataRoot)
          : await loadAgent(manager.dataRoot, agentId);
      if (!loaded.ok) {
        return jsonError(c, 400, "invalid_config", `agent ${agentId}: ${formatConfigErrors(loaded.errors)}`);
      }
      const { exec } = loaded.agent.config;
      const profiles = Object.entries(executionProfilesOf(exec.profiles)).map(([name, profile]) => ({
        name,
        kind: profile.kind,
        network: profile.kind === "native" || profile.network,
        full_host_access: isFullHostAccess(profile),
      }));
      return c.json({ profiles, default_profile: exec.profile }, 200);
    },
  });
  return [list];
}
