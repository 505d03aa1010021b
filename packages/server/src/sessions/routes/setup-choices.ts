import { formatModelRef, loadProjectConfig } from "@penguin/state";
import { z } from "zod";
import { jsonError } from "../../http/errors.js";
import { type AnyRouteSpec, defineRoute, errorResponse } from "../../http/route.js";
import { listFolders, MAX_LISTED_FOLDERS } from "../folders.js";
import { existingRoots } from "../workspace.js";
import type { SessionRoutesOptions } from "./session-route.js";

const WorkspaceRootsResponseSchema = z.object({
  roots: z
    .array(z.string())
    .describe(
      "The folders a session's workspace may be in (or be), resolved; roots that do not exist are left out",
    ),
});

const FoldersQuerySchema = z.object({
  path: z
    .string()
    .min(1)
    .max(4096)
    .regex(/^\//, "an absolute path")
    .describe("The folder to list: a workspace root or a folder inside one"),
  hidden: z
    .enum(["true", "false"])
    .optional()
    .describe("true lists folders whose name starts with a dot too; default false"),
});

const FoldersResponseSchema = z.object({
  path: z.string().describe("The folder listed, resolved through symbolic links"),
  root: z.string().describe("The workspace root it lies in"),
  parent: z.string().nullable().describe("The folder above while still inside the root; null at the root"),
  folders: z
    .array(z.object({ name: z.string(), path: z.string() }))
    .describe(
      "Its sub-folders by name (files are never listed, nor links leading out of the roots or into the server's data folder)",
    ),
  truncated: z.boolean().describe(`true when it has more than ${MAX_LISTED_FOLDERS} sub-folders`),
});

const ModelChoiceSchema = z.object({
  ref: z.string().describe('"provider/model-id", as POST /api/sessions takes it'),
  name: z.string().optional(),
  vision: z.boolean(),
});

const ModelListResponseSchema = z.object({
  models: z.array(ModelChoiceSchema).describe("The models of the project config (never their keys)"),
  default_model: z.string().nullable().describe("The model a session gets when it names none"),
});

/** What the create form offers: the workspace roots, a folder picker inside them, the configured models. */
export function sessionSetupChoiceRoutes(options: SessionRoutesOptions): AnyRouteSpec[] {
  const { manager, workspaceRoots } = options;

  const roots = defineRoute({
    method: "get",
    path: "/api/workspace/roots",
    summary: "The folders session workspaces may be picked from",
    tag: "sessions",
    access: "user",
    responses: { 200: { description: "The roots", schema: WorkspaceRootsResponseSchema } },
    async handle(c) {
      return c.json({ roots: await existingRoots(workspaceRoots) }, 200);
    },
  });

  const folders = defineRoute({
    method: "get",
    path: "/api/workspace/folders",
    summary: "The sub-folders of a folder inside the workspace roots (for a folder picker)",
    tag: "sessions",
    access: "user",
    query: FoldersQuerySchema,
    responses: {
      200: { description: "The folder's sub-folders", schema: FoldersResponseSchema },
      400: errorResponse(
        "invalid_workspace: the path is outside the workspace roots (the answer does not say whether it exists there), in the server's data folder, missing or not a folder",
      ),
    },
    async handle(c, { query }) {
      const listing = await listFolders(query.path, workspaceRoots, { hidden: query.hidden === "true" });
      if (!listing.ok) return jsonError(c, 400, "invalid_workspace", listing.message);
      const { ok: _ok, ...body } = listing;
      return c.json(body, 200);
    },
  });

  const models = defineRoute({
    method: "get",
    path: "/api/models",
    summary: "The models configured in the project, and its default",
    tag: "sessions",
    access: "user",
    responses: {
      200: { description: "The models", schema: ModelListResponseSchema },
      500: errorResponse("invalid_config: the project config cannot be read"),
    },
    async handle(c) {
      const loaded = await loadProjectConfig(manager.dataRoot);
      if (!loaded.ok) return jsonError(c, 500, "invalid_config", "the project config cannot be read");
      const { config } = loaded;
      return c.json(
        {
          models: config.models.map((entry) => ({
            ref: formatModelRef({ provider: entry.provider, modelId: entry.model_id }),
            ...(entry.name !== undefined ? { name: entry.name } : {}),
            vision: entry.vision,
          })),
          default_model: config.default_model ?? null,
        },
        200,
      );
    },
  });

  return [roots, folders, models];
}
