import { readFile } from "node:fs/promises";
import {
  type ConfigError,
  createAgent,
  DEFAULT_AGENT_ID,
  ensureDefaultAgent,
  formatConfigErrors,
  listAgents,
  loadAgent,
  parseSystemConfig,
  SYSTEM_CONFIG_FILE,
  systemConfigFile,
  writePrivateFile,
} from "@penguin/state";
import type { Context } from "hono";
import { z } from "zod";
import { jsonError, notFound } from "../http/errors.js";
import { SafeIdSchema } from "../http/ids.js";
import { type AnyRouteSpec, defineRoute, errorResponse } from "../http/route.js";

export interface AgentRoutesOptions {
  dataRoot: string;
}

/** A system_config.yaml is a hand-edited file: 256 KiB is far more than any real one needs. */
export const MAX_AGENT_CONFIG_BYTES = 256 * 1024;

const AgentSummarySchema = z.object({
  id: z.string(),
  name: z.string().optional(),
  description: z.string().optional(),
  problem: z.string().optional().describe("Why the agent's file cannot be loaded, when it cannot"),
});
const AgentListResponseSchema = z.object({ agents: z.array(AgentSummarySchema) });

const AgentConfigSchema = z.object({
  agent_id: z.string(),
  yaml: z.string().describe("The agent's system_config.yaml as written"),
});

const ConfigYamlSchema = z
  .string()
  .max(MAX_AGENT_CONFIG_BYTES, `a system_config.yaml is at most ${MAX_AGENT_CONFIG_BYTES} characters`);

const CreateAgentRequestSchema = z.strictObject({
  id: SafeIdSchema.describe("The new agent's id (its folder name)"),
  yaml: ConfigYamlSchema.optional().describe(
    "Its system_config.yaml; default: the defaults with the full tool list written out",
  ),
});

const ReplaceConfigRequestSchema = z.strictObject({ yaml: ConfigYamlSchema });

const ConfigErrorSchema = z.object({
  line: z.number().int(),
  column: z.number().int(),
  path: z.string().describe("The field, e.g. tools.builtin[0].parameters; empty for the document"),
  message: z.string(),
});
const InvalidConfigResponseSchema = z.object({
  error: z.literal("invalid_config"),
  message: z.string().describe("Every problem as `system_config.yaml:line:column: path: message`"),
  config_errors: z.array(ConfigErrorSchema),
});

const IdParams = z.object({ id: SafeIdSchema });

function invalidConfig(c: Context, errors: readonly ConfigError[]): Response {
  return c.json(
    {
      error: "invalid_config" as const,
      message: formatConfigErrors(errors),
      config_errors: errors.map(({ line, column, path, message }) => ({ line, column, path, message })),
    },
    400,
  );
}

/**
 * Agents: the `system_config.yaml` files under `<data root>/agents/`. Any user may list them;
 * reading and writing a file is for admins, because an agent is shared by every user of the
 * server and its file may carry MCP server keys. A replacement is validated first
 * (`parseSystemConfig`) and answered with 400 and every `file:line:column` error when invalid;
 * a valid one is written atomically with mode 0600. Sessions opened afterwards use it.
 */
export function agentRoutes(options: AgentRoutesOptions): AnyRouteSpec[] {
  const { dataRoot } = options;

  const list = defineRoute({
    method: "get",
    path: "/api/agents",
    summary: "The agents of the data root (the default agent is created on first use)",
    tag: "agents",
    access: "user",
    responses: { 200: { description: "Agents", schema: AgentListResponseSchema } },
    async handle(c) {
      await ensureDefaultAgent(dataRoot);
      const agents = await Promise.all(
        (await listAgents(dataRoot)).map(async (id) => {
          const loaded = await loadAgent(dataRoot, id);
          if (!loaded.ok) return { id, problem: formatConfigErrors(loaded.errors) };
          const { name, description } = loaded.agent.config;
          return {
            id,
            ...(name !== undefined ? { name } : {}),
            ...(description !== undefined ? { description } : {}),
          };
        }),
      );
      return c.json({ agents }, 200);
    },
  });

  const create = defineRoute({
    method: "post",
    path: "/api/agents",
    summary: "Create an agent (admins)",
    tag: "agents",
    access: "admin",
    body: CreateAgentRequestSchema,
    responses: {
      201: { description: "Created", schema: AgentConfigSchema },
      400: { description: "The YAML is invalid", schema: InvalidConfigResponseSchema },
      409: errorResponse("An agent with this id exists"),
    },
    async handle(c, { body }) {
      const file = systemConfigFile(dataRoot, body.id);
      if (body.yaml !== undefined) {
        const parsed = parseSystemConfig(body.yaml, SYSTEM_CONFIG_FILE);
        if (!parsed.ok) return invalidConfig(c, parsed.errors);
        try {
          await writePrivateFile(file, body.yaml, { overwrite: false });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "EEXIST") {
            return jsonError(c, 409, "conflict", `agent "${body.id}" already exists`);
          }
          throw error;
        }
        return c.json({ agent_id: body.id, yaml: body.yaml }, 201);
      }
      const created = await createAgent(dataRoot, body.id);
      if (!created.ok) return jsonError(c, 409, "conflict", `agent "${body.id}" already exists`);
      return c.json({ agent_id: body.id, yaml: await readFile(file, "utf8") }, 201);
    },
  });

  const read = defineRoute({
    method: "get",
    path: "/api/agents/:id/config",
    summary: "An agent's system_config.yaml as written (admins)",
    tag: "agents",
    access: "admin",
    params: IdParams,
    responses: {
      200: { description: "The file", schema: AgentConfigSchema },
      404: errorResponse("No such agent"),
    },
    async handle(c, { params }) {
      if (params.id === DEFAULT_AGENT_ID) await ensureDefaultAgent(dataRoot);
      try {
        return c.json(
          { agent_id: params.id, yaml: await readFile(systemConfigFile(dataRoot, params.id), "utf8") },
          200,
        );
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return notFound(c, "no such agent");
        throw error;
      }
    },
  });

  const replace = defineRoute({
    method: "put",
    path: "/api/agents/:id/config",
    summary: "Replace an agent's system_config.yaml after validating it (admins)",
    tag: "agents",
    access: "admin",
    params: IdParams,
    body: ReplaceConfigRequestSchema,
    responses: {
      200: { description: "Written (0600); sessions opened from now on use it", schema: AgentConfigSchema },
      400: {
        description: "The YAML is invalid: every error with line and column",
        schema: InvalidConfigResponseSchema,
      },
      404: errorResponse("No such agent"),
    },
    async handle(c, { params, body }) {
      if (params.id === DEFAULT_AGENT_ID) await ensureDefaultAgent(dataRoot);
      if (!(await listAgents(dataRoot)).includes(params.id)) return notFound(c, "no such agent");
      const parsed = parseSystemConfig(body.yaml, SYSTEM_CONFIG_FILE);
      if (!parsed.ok) return invalidConfig(c, parsed.errors);
      await writePrivateFile(systemConfigFile(dataRoot, params.id), body.yaml);
      return c.json({ agent_id: params.id, yaml: body.yaml }, 200);
    },
  });

  return [list, create, read, replace];
}
