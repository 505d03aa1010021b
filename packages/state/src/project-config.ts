import { access } from "node:fs/promises";
import { onFirstUse } from "@penguin/protocol";
import { stringify } from "yaml";
import { z } from "zod";
import { configDefault } from "./config-defaults.js";
import { type ConfigResult, loadYamlConfig } from "./config-errors.js";
import { DEFAULT_GUARDRAIL_RULES, guardrailSchemas } from "./guardrail.js";
import { DEFAULT_PROJECT_ID, projectConfigFile } from "./paths.js";
import { writePrivateFile } from "./private-files.js";

/** Wire protocols Penguin speaks; a provider named like one of these uses it. */
export const PROVIDER_APIS = ["openai", "openai-responses", "anthropic", "openai-compatible"] as const;
export type ProviderApi = (typeof PROVIDER_APIS)[number];
/** `replay:FILE` names a recorded session replayed instead of a live model. */
export const REPLAY_PROVIDER = "replay";

const PROVIDER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The schemas of project.yaml, built on the first call (configuration is checked only when read). */
export const projectConfigSchemas = onFirstUse(() => {
  const { GuardrailRuleSchema } = guardrailSchemas();
  const nonNegative = z.number().nonnegative();

  /** USD per million tokens in each of the three price buckets (plus cache writes where billed). */
  const ModelPricesSchema = z.strictObject({
    input_per_mtok: nonNegative,
    output_per_mtok: nonNegative,
    cache_read_per_mtok: nonNegative.optional(),
    cache_write_per_mtok: nonNegative.optional(),
  });

  const ModelEntrySchema = z.strictObject({
    /** Display name. */
    name: z.string().optional(),
    /** A wire protocol (see `PROVIDER_APIS`) or any name for a provider group ("deepseek"). */
    provider: z.string().regex(PROVIDER_NAME, "a provider name is letters, digits, '_' or '-'"),
    model_id: z.string().min(1),
    /** The wire protocol of a provider group; default: the provider's own name when it is one, else openai-compatible. */
    api: z.enum(PROVIDER_APIS).optional(),
    base_url: z.url({ protocol: /^https?$/, error: "an http(s) URL" }).optional(),
    api_key: z.string().min(1).optional(),
    /** Read the key from this environment variable instead of storing it. */
    api_key_env: z.string().regex(ENV_NAME, "an environment variable name").optional(),
    context_window: z.number().int().positive().optional(),
    max_tokens: z.number().int().positive().optional(),
    vision: z.boolean().default(false),
    prices: ModelPricesSchema.optional(),
  });

  const modelRefField = z.string().refine((ref) => parseModelRef(ref) !== undefined, {
    message: 'a model reference is "provider/model_id"',
  });

  const GuardrailSettingsSchema = z.strictObject({
    /** Omitted: the default rules. Written: replaces them wholesale. */
    rules: z.array(GuardrailRuleSchema).default(() => structuredClone([...DEFAULT_GUARDRAIL_RULES])),
  });

  /** The whole of `projects/<projectId>/project.yaml`. */
  const ProjectConfigSchema = z
    .strictObject({
      models: z.array(ModelEntrySchema).default([]),
      /** "provider/model_id" of the model a session uses when none is named. */
      default_model: modelRefField.optional(),
      /** "provider/model_id" of the model describe_image asks. */
      vision_model: modelRefField.optional(),
      guardrail: GuardrailSettingsSchema.prefault({}),
    })
    .superRefine((config, ctx) => {
      const seen = new Map<string, number>();
      config.models.forEach((model, index) => {
        const key = `${model.provider}/${model.model_id}`;
        const first = seen.get(key);
        if (first === undefined) seen.set(key, index);
        else
          ctx.addIssue({
            code: "custom",
            path: ["models", index],
            message: `duplicate model "${key}" (also at index ${first})`,
          });
      });
    });
  return { ModelPricesSchema, ModelEntrySchema, ProjectConfigSchema };
});
type Schemas = ReturnType<typeof projectConfigSchemas>;

export type ProjectConfig = z.output<Schemas["ProjectConfigSchema"]>;
export type ProjectConfigInput = z.input<Schemas["ProjectConfigSchema"]>;
export type ModelEntry = z.output<Schemas["ModelEntrySchema"]>;
export type ModelEntryInput = z.input<Schemas["ModelEntrySchema"]>;
export type ModelPrices = z.output<Schemas["ModelPricesSchema"]>;

export interface ModelRef {
  provider: string;
  modelId: string;
}

/**
 * `"openai/gpt-5"` -> `{provider: "openai", modelId: "gpt-5"}`, split at the first slash so ids
 * with slashes work (`"openrouter/meta/llama-3"`); `"replay:FILE"` -> `{provider: "replay",
 * modelId: FILE}`. Undefined when either part is empty.
 */
export function parseModelRef(ref: string): ModelRef | undefined {
  if (ref.startsWith(`${REPLAY_PROVIDER}:`)) {
    const file = ref.slice(REPLAY_PROVIDER.length + 1);
    return file ? { provider: REPLAY_PROVIDER, modelId: file } : undefined;
  }
  const slash = ref.indexOf("/");
  if (slash <= 0 || slash === ref.length - 1) return undefined;
  return { provider: ref.slice(0, slash), modelId: ref.slice(slash + 1) };
}

export function formatModelRef(ref: ModelRef): string {
  return ref.provider === REPLAY_PROVIDER
    ? `${REPLAY_PROVIDER}:${ref.modelId}`
    : `${ref.provider}/${ref.modelId}`;
}

/** The wire protocol of a model entry (or of a bare provider name). */
export function providerApi(entry: Pick<ModelEntry, "provider"> & { api?: ProviderApi }): ProviderApi {
  if (entry.api) return entry.api;
  return (PROVIDER_APIS as readonly string[]).includes(entry.provider)
    ? (entry.provider as ProviderApi)
    : "openai-compatible";
}

export function defaultProjectConfig(): ProjectConfig {
  return configDefault("project");
}

export function findModel(config: ProjectConfig, provider: string, modelId: string): ModelEntry | undefined {
  return config.models.find((model) => model.provider === provider && model.model_id === modelId);
}

/** A project config after a change, or why the change was refused. */
export type ProjectConfigUpdate = { ok: true; config: ProjectConfig } | { ok: false; message: string };

/** Adds a model, replacing an entry with the same provider and model_id. The input is not modified. */
export function addModel(config: ProjectConfig, entry: ModelEntryInput): ProjectConfigUpdate {
  const parsed = projectConfigSchemas().ModelEntrySchema.safeParse(entry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, message: `invalid model ${issue.path.join(".") || "entry"}: ${issue.message}` };
  }
  const model = parsed.data;
  const models = config.models.filter(
    (m) => !(m.provider === model.provider && m.model_id === model.model_id),
  );
  return { ok: true, config: { ...structuredClone(config), models: [...structuredClone(models), model] } };
}

/** Removes a model; a default or vision model that named it is unset. */
export function removeModel(config: ProjectConfig, provider: string, modelId: string): ProjectConfigUpdate {
  if (!findModel(config, provider, modelId))
    return { ok: false, message: `no model "${provider}/${modelId}"` };
  const next = structuredClone(config);
  next.models = next.models.filter((m) => !(m.provider === provider && m.model_id === modelId));
  const ref = `${provider}/${modelId}`;
  if (next.default_model === ref) delete next.default_model;
  if (next.vision_model === ref) delete next.vision_model;
  return { ok: true, config: next };
}

/**
 * Sets the default model. The model need not be listed in `models`: a provider whose key comes
 * from the environment (`OPENAI_API_KEY`) works without an entry.
 */
export function setDefaultModel(config: ProjectConfig, ref: string): ProjectConfigUpdate {
  if (!parseModelRef(ref))
    return { ok: false, message: `"${ref}" is not a model reference ("provider/model_id")` };
  return { ok: true, config: { ...structuredClone(config), default_model: ref } };
}

/** Sets the model that describe_image asks; it must be listed with `vision: true`. */
export function setVisionModel(config: ProjectConfig, ref: string): ProjectConfigUpdate {
  const parsed = parseModelRef(ref);
  if (!parsed) return { ok: false, message: `"${ref}" is not a model reference ("provider/model_id")` };
  const model = findModel(config, parsed.provider, parsed.modelId);
  if (!model) return { ok: false, message: `no model "${ref}"; add it first` };
  if (!model.vision) return { ok: false, message: `model "${ref}" is not marked vision: true` };
  return { ok: true, config: { ...structuredClone(config), vision_model: ref } };
}

/**
 * Loads a project's config. A project without a config file has the default config (no models,
 * default guardrail rules); an invalid file is reported, never half-loaded.
 */
export async function loadProjectConfig(
  root: string,
  projectId: string = DEFAULT_PROJECT_ID,
): Promise<ConfigResult<ProjectConfig>> {
  const file = projectConfigFile(root, projectId);
  try {
    await access(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return { ok: true, config: defaultProjectConfig() };
  }
  return loadYamlConfig(file, () => projectConfigSchemas().ProjectConfigSchema);
}

/** Writes a project's config atomically, mode 0600 (it may hold API keys), folders 0700. */
export async function saveProjectConfig(
  root: string,
  config: ProjectConfig,
  projectId: string = DEFAULT_PROJECT_ID,
): Promise<string> {
  const file = projectConfigFile(root, projectId);
  const valid = projectConfigSchemas().ProjectConfigSchema.parse(config);
  const header =
    "# Penguin project config (see docs/configuration.md). This file may hold API keys: keep it private.\n";
  await writePrivateFile(file, header + stringify(valid, { lineWidth: 0 }));
  return file;
}

/** An API key and base URL for one provider, and where the key came from. */
export interface Credentials {
  apiKey?: string;
  baseUrl?: string;
  /** "config", "env:NAME" or "none". */
  apiKeySource: string;
}

/** `deepseek` -> `DEEPSEEK`, `openai-compatible` -> `OPENAI_COMPATIBLE`. */
export function providerEnvPrefix(provider: string): string {
  return provider.toUpperCase().replace(/[^A-Z0-9]/g, "_");
}

/** openai-responses is the same account as openai: its key variables are OpenAI's too. */
const ENV_FALLBACK: Record<string, string> = { "openai-responses": "openai" };

function envNames(provider: string, suffix: string): string[] {
  const names = [`${providerEnvPrefix(provider)}_${suffix}`];
  const fallback = ENV_FALLBACK[provider];
  if (fallback) names.push(`${providerEnvPrefix(fallback)}_${suffix}`);
  return names;
}

/**
 * A provider's key and base URL: from the model entry (`api_key`, then the variable named by
 * `api_key_env`), else from `<PROVIDER>_API_KEY` / `<PROVIDER>_BASE_URL` (upper-cased, dashes
 * to underscores). Empty values count as unset.
 */
export function resolveCredentials(
  provider: string,
  entry?: Pick<ModelEntry, "api_key" | "api_key_env" | "base_url">,
  env: NodeJS.ProcessEnv = process.env,
): Credentials {
  const baseUrl = entry?.base_url || firstEnv(envNames(provider, "BASE_URL"), env)?.value;
  if (entry?.api_key) return { apiKey: entry.api_key, baseUrl, apiKeySource: "config" };
  const names = entry?.api_key_env ? [entry.api_key_env] : envNames(provider, "API_KEY");
  const found = firstEnv(names, env);
  return found
    ? { apiKey: found.value, baseUrl, apiKeySource: `env:${found.name}` }
    : { baseUrl, apiKeySource: "none" };
}

function firstEnv(
  names: readonly string[],
  env: NodeJS.ProcessEnv,
): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name];
    if (value) return { name, value };
  }
  return undefined;
}

/**
 * Every key value the project can reach, for redaction: `api_key` values, the variables named by
 * `api_key_env`, `<PROVIDER>_API_KEY` for every provider the config mentions, and the extra
 * variables named in `secretEnvNames` (a system config's `secrets`). Sorted longest first, so a
 * redactor replaces a key before any shorter key it contains.
 */
/** Names of environment variables whose values are credentials (`OPENAI_API_KEY`, `GITHUB_TOKEN`...). */
export const CREDENTIAL_ENV_NAME = /(KEY|TOKEN|SECRET|PASSWORD)$/i;
/** Shorter values are left alone: redacting "1" or "yes" everywhere would garble output. */
export const MIN_SECRET_LENGTH = 8;

/** The values of every credential-looking environment variable. */
export function credentialEnvValues(env: NodeJS.ProcessEnv = process.env): string[] {
  return Object.entries(env)
    .filter(
      ([name, value]) =>
        CREDENTIAL_ENV_NAME.test(name) && value !== undefined && value.length >= MIN_SECRET_LENGTH,
    )
    .map(([, value]) => value as string);
}

export function secretValues(
  config: ProjectConfig,
  env: NodeJS.ProcessEnv = process.env,
  secretEnvNames: readonly string[] = [],
): string[] {
  const values = new Set<string>();
  const providers = new Set(config.models.map((m) => m.provider));
  for (const ref of [config.default_model, config.vision_model]) {
    const parsed = ref ? parseModelRef(ref) : undefined;
    if (parsed && parsed.provider !== REPLAY_PROVIDER) providers.add(parsed.provider);
  }
  for (const model of config.models) {
    if (model.api_key) values.add(model.api_key);
    if (model.api_key_env && env[model.api_key_env]) values.add(env[model.api_key_env]!);
  }
  for (const provider of providers) {
    for (const name of envNames(provider, "API_KEY")) if (env[name]) values.add(env[name]!);
  }
  for (const name of secretEnvNames) if (env[name]) values.add(env[name]!);
  // Keys reach a session through the environment as often as through the config (the CLI's
  // `--model openai/x` with OPENAI_API_KEY set): every credential-looking variable counts, since
  // commands inherit the environment and can print it.
  for (const value of credentialEnvValues(env)) values.add(value);
  return [...values].sort((a, b) => b.length - a.length);
}
