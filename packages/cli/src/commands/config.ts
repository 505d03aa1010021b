import { errorMessage } from "@penguin/protocol";
import {
  addModel,
  type ConfigError,
  findModel,
  formatConfigErrors,
  loadProjectConfig,
  type ModelEntry,
  type ModelEntryInput,
  PROVIDER_APIS,
  type ProjectConfig,
  type ProjectConfigUpdate,
  parseModelRef,
  projectConfigFile,
  providerApi,
  providerEnvPrefix,
  REPLAY_PROVIDER,
  removeModel,
  saveProjectConfig,
  setDefaultModel,
  setVisionModel,
} from "@penguin/state";
import { type DataRootOptions, dataRootOf } from "../data-root.js";
import { EXIT_COMPLETED, EXIT_TASK_FAILED, EXIT_USAGE, UsageError } from "../exit-codes.js";
import { maskSecret } from "../mask.js";
import { note, out } from "../output.js";
import { readStdin } from "../prompts/stdin.js";
import { formatTable } from "../render/format.js";
import { colourEnabled, createStyle } from "../render/style.js";

/**
 * "Invalid config files produce the file:line:col: path: message lines and exit 2": one line per
 * problem on stderr, in the form editors link to, then what to do about it.
 */
export function reportConfigErrors(errors: readonly ConfigError[]): number {
  note(formatConfigErrors(errors));
  note("penguin: fix the file above (docs/configuration.md describes every field) and run the command again");
  return EXIT_USAGE;
}

/** A loaded project config, or the exit code after its errors were reported. */
async function projectConfigOf(root: string): Promise<ProjectConfig | number> {
  const loaded = await loadProjectConfig(root);
  return loaded.ok ? loaded.config : reportConfigErrors(loaded.errors);
}

async function save(root: string, update: ProjectConfigUpdate): Promise<string> {
  if (!update.ok) throw new UsageError(update.message);
  try {
    return await saveProjectConfig(root, update.config);
  } catch (error) {
    throw new UsageError(`cannot write ${projectConfigFile(root)}: ${errorMessage(error)}`, EXIT_TASK_FAILED);
  }
}

/** A `provider/model-id` the project config can list (a replay cassette is not a model to add). */
function modelRefArgument(ref: string): { provider: string; modelId: string } {
  const parsed = parseModelRef(ref);
  if (!parsed || parsed.provider === REPLAY_PROVIDER) {
    throw new UsageError(
      `invalid model "${ref}": use provider/model-id (e.g. openai/gpt-5, anthropic/claude-sonnet-4-5)`,
    );
  }
  return parsed;
}

/** Where a model's key comes from, never the key itself. */
export function keyDescription(model: ModelEntry, env: NodeJS.ProcessEnv = process.env): string {
  if (model.api_key) return `${maskSecret(model.api_key)} (in the config file)`;
  const variable = model.api_key_env ?? `${providerEnvPrefix(model.provider)}_API_KEY`;
  return `$${variable} (${env[variable] ? "set" : "not set"})`;
}

export type ModelsListOptions = DataRootOptions & { json?: boolean };

/** `penguin config models list`. */
export async function modelsList(opts: ModelsListOptions): Promise<number> {
  const root = dataRootOf(opts);
  const config = await projectConfigOf(root);
  if (typeof config === "number") return config;
  if (opts.json) {
    const models = config.models.map((m) => ({
      ...m,
      ...(m.api_key ? { api_key: maskSecret(m.api_key) } : {}),
    }));
    out(
      JSON.stringify(
        { default_model: config.default_model, vision_model: config.vision_model, models },
        null,
        2,
      ),
    );
    return EXIT_COMPLETED;
  }
  const style = createStyle(colourEnabled(process.stdout));
  if (config.models.length === 0) {
    note(
      `no models in ${projectConfigFile(root)}: add one with \`penguin config models add <provider/model-id>\``,
    );
  } else {
    const header = ["MODEL", "API", "KEY", "CONTEXT", "MAX TOKENS", "PRICES ($/Mtok in/out)", "BASE URL"];
    const rows = config.models.map((m) => {
      const ref = `${m.provider}/${m.model_id}`;
      const marks = [ref === config.default_model ? "default" : "", m.vision ? "vision" : ""].filter(Boolean);
      return [
        marks.length > 0 ? `${ref} ${style.dim(`(${marks.join(", ")})`)}` : ref,
        providerApi(m),
        keyDescription(m),
        m.context_window ? String(m.context_window) : "-",
        m.max_tokens ? String(m.max_tokens) : "-",
        m.prices ? `${m.prices.input_per_mtok} / ${m.prices.output_per_mtok}` : "-",
        m.base_url ?? "-",
      ];
    });
    for (const line of formatTable([header.map((h) => style.bold(h)), ...rows])) out(line);
  }
  out(`default model: ${config.default_model ?? style.dim("(none)")}`);
  out(`vision model: ${config.vision_model ?? style.dim("(none)")}`);
  return EXIT_COMPLETED;
}

export interface ModelsAddOptions extends DataRootOptions {
  name?: string;
  api?: string;
  baseUrl?: string;
  apiKey?: string;
  apiKeyEnv?: string;
  contextWindow?: string;
  maxTokens?: string;
  vision?: boolean;
  priceInput?: string;
  priceOutput?: string;
  priceCacheRead?: string;
  priceCacheWrite?: string;
}

function positiveInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new UsageError(`${flag} takes a positive whole number, not "${value}"`);
  return n;
}

function price(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 0) {
    throw new UsageError(
      `${flag} takes a price in US dollars per million tokens (e.g. 1.25), not "${value}"`,
    );
  }
  return n;
}

/** `--api-key -` reads the key from stdin, so it stays out of the shell's history. */
async function apiKeyOf(value: string | undefined): Promise<string | undefined> {
  if (value !== "-") return value;
  if (process.stdin.isTTY)
    throw new UsageError("--api-key - reads the key from stdin: pipe it in (e.g. from a password manager)");
  const key = (await readStdin()).trim();
  if (key === "") throw new UsageError("--api-key -: stdin was empty");
  return key;
}

/** `penguin config models add <provider/model-id>`: adds the model, or replaces its entry. */
export async function modelsAdd(ref: string, opts: ModelsAddOptions): Promise<number> {
  const { provider, modelId } = modelRefArgument(ref);
  if (opts.api !== undefined && !(PROVIDER_APIS as readonly string[]).includes(opts.api)) {
    throw new UsageError(`unknown --api "${opts.api}": use one of ${PROVIDER_APIS.join(", ")}`);
  }
  if (opts.apiKey !== undefined && opts.apiKeyEnv !== undefined) {
    throw new UsageError("pass --api-key or --api-key-env, not both");
  }
  const input = price("--price-input", opts.priceInput);
  const output = price("--price-output", opts.priceOutput);
  const cacheRead = price("--price-cache-read", opts.priceCacheRead);
  const cacheWrite = price("--price-cache-write", opts.priceCacheWrite);
  if (
    (input === undefined) !== (output === undefined) ||
    (input === undefined && (cacheRead ?? cacheWrite) !== undefined)
  ) {
    throw new UsageError("prices need both --price-input and --price-output (cache prices are optional)");
  }
  const entry: ModelEntryInput = { provider, model_id: modelId, vision: opts.vision === true };
  if (opts.name !== undefined) entry.name = opts.name;
  if (opts.api !== undefined) entry.api = opts.api as ModelEntryInput["api"];
  if (opts.baseUrl !== undefined) entry.base_url = opts.baseUrl;
  const apiKey = await apiKeyOf(opts.apiKey);
  if (apiKey !== undefined) entry.api_key = apiKey;
  if (opts.apiKeyEnv !== undefined) entry.api_key_env = opts.apiKeyEnv;
  const contextWindow = positiveInteger("--context-window", opts.contextWindow);
  if (contextWindow !== undefined) entry.context_window = contextWindow;
  const maxTokens = positiveInteger("--max-tokens", opts.maxTokens);
  if (maxTokens !== undefined) entry.max_tokens = maxTokens;
  if (input !== undefined && output !== undefined) {
    entry.prices = { input_per_mtok: input, output_per_mtok: output };
    if (cacheRead !== undefined) entry.prices.cache_read_per_mtok = cacheRead;
    if (cacheWrite !== undefined) entry.prices.cache_write_per_mtok = cacheWrite;
  }

  const root = dataRootOf(opts);
  const config = await projectConfigOf(root);
  if (typeof config === "number") return config;
  const replaced = findModel(config, provider, modelId) !== undefined;
  const file = await save(root, addModel(config, entry));
  const saved = await projectConfigOf(root);
  const model = typeof saved === "number" ? undefined : findModel(saved, provider, modelId);
  const key = model ? `; key: ${keyDescription(model)}` : "";
  out(`${replaced ? "replaced" : "added"} ${provider}/${modelId} in ${file}${key}`);
  return EXIT_COMPLETED;
}

/** `penguin config models remove <provider/model-id>`. */
export async function modelsRemove(ref: string, opts: DataRootOptions): Promise<number> {
  const { provider, modelId } = modelRefArgument(ref);
  const root = dataRootOf(opts);
  const config = await projectConfigOf(root);
  if (typeof config === "number") return config;
  if (!findModel(config, provider, modelId)) {
    const listed = config.models.map((m) => `${m.provider}/${m.model_id}`);
    throw new UsageError(
      `no model "${ref}" in ${projectConfigFile(root)}: ${listed.length > 0 ? `the models are ${listed.join(", ")}` : "it lists no models"}`,
    );
  }
  const unset = [
    config.default_model === ref ? "default model" : "",
    config.vision_model === ref ? "vision model" : "",
  ].filter(Boolean);
  const file = await save(root, removeModel(config, provider, modelId));
  out(
    `removed ${ref} from ${file}${unset.length > 0 ? ` (it was the ${unset.join(" and ")}, now unset)` : ""}`,
  );
  return EXIT_COMPLETED;
}

/** `penguin config default-model [ref]`: shows the default model, or sets it. */
export function defaultModel(ref: string | undefined, opts: DataRootOptions): Promise<number> {
  return showOrSetModel(
    ref,
    opts,
    (config) => config.default_model ?? "(none: sessions need --model or $PENGUIN_MODEL)",
    setDefault,
  );
}

async function setDefault(root: string, config: ProjectConfig, ref: string): Promise<number> {
  const parsed = parseModelRef(ref);
  if (!parsed) throw new UsageError(`invalid model "${ref}": use provider/model-id or replay:FILE`);
  const file = await save(root, setDefaultModel(config, ref));
  const listed = parsed.provider === REPLAY_PROVIDER || findModel(config, parsed.provider, parsed.modelId);
  const hint = listed
    ? ""
    : ` (not in models: its key comes from $${providerEnvPrefix(parsed.provider)}_API_KEY)`;
  out(`default model: ${ref} in ${file}${hint}`);
  return EXIT_COMPLETED;
}

/** `penguin config vision-model [ref]`: shows the model describe_image asks, or sets it. */
export function visionModel(ref: string | undefined, opts: DataRootOptions): Promise<number> {
  return showOrSetModel(ref, opts, (config) => config.vision_model ?? "(none)", setVision);
}

async function setVision(root: string, config: ProjectConfig, ref: string): Promise<number> {
  modelRefArgument(ref);
  const update = setVisionModel(config, ref);
  if (!update.ok) {
    throw new UsageError(
      `${update.message} (\`penguin config models add ${ref} --vision\` lists it as a vision model)`,
    );
  }
  const file = await save(root, update);
  out(`vision model: ${ref} in ${file}`);
  return EXIT_COMPLETED;
}

/** A model setting of the project config: without a ref, prints the current one; with one, sets it. */
async function showOrSetModel(
  ref: string | undefined,
  opts: DataRootOptions,
  current: (config: ProjectConfig) => string,
  set: (root: string, config: ProjectConfig, ref: string) => Promise<number>,
): Promise<number> {
  const root = dataRootOf(opts);
  const config = await projectConfigOf(root);
  if (typeof config === "number") return config;
  if (ref === undefined) {
    out(current(config));
    return EXIT_COMPLETED;
  }
  return set(root, config, ref);
}
