import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  addModel,
  credentialEnvValues,
  DEFAULT_GUARDRAIL_RULES,
  defaultProjectConfig,
  findModel,
  formatModelRef,
  loadProjectConfig,
  type ProjectConfig,
  parseModelRef,
  projectConfigFile,
  providerApi,
  removeModel,
  resolveCredentials,
  saveProjectConfig,
  secretValues,
  setDefaultModel,
  setVisionModel,
} from "../src/index.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "penguin-project-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function unwrap(result: { ok: true; config: ProjectConfig } | { ok: false; message: string }): ProjectConfig {
  if (!result.ok) throw new Error(result.message);
  return result.config;
}

describe("parseModelRef", () => {
  it.each([
    ["openai/gpt-5", { provider: "openai", modelId: "gpt-5" }],
    ["openrouter/meta/llama-3", { provider: "openrouter", modelId: "meta/llama-3" }],
    ["replay:fixtures/run.jsonl", { provider: "replay", modelId: "fixtures/run.jsonl" }],
  ])("%s", (ref, expected) => {
    expect(parseModelRef(ref)).toEqual(expected);
    expect(formatModelRef(expected)).toBe(ref);
  });

  it.each(["gpt-5", "/gpt-5", "openai/", "", "replay:"])("rejects %j", (ref) => {
    expect(parseModelRef(ref)).toBeUndefined();
  });
});

describe("credentials", () => {
  it("take the key and base URL from the model entry first", () => {
    const creds = resolveCredentials(
      "deepseek",
      { api_key: "sk-config", base_url: "https://api.deepseek.com" },
      { DEEPSEEK_API_KEY: "sk-env", DEEPSEEK_BASE_URL: "https://env.example" },
    );
    expect(creds).toEqual({
      apiKey: "sk-config",
      baseUrl: "https://api.deepseek.com",
      apiKeySource: "config",
    });
  });

  it("fall back to <PROVIDER>_API_KEY and <PROVIDER>_BASE_URL, dashes as underscores", () => {
    const env = { MY_GATEWAY_API_KEY: "sk-gw", MY_GATEWAY_BASE_URL: "http://127.0.0.1:9000/v1" };
    expect(resolveCredentials("my-gateway", undefined, env)).toEqual({
      apiKey: "sk-gw",
      baseUrl: "http://127.0.0.1:9000/v1",
      apiKeySource: "env:MY_GATEWAY_API_KEY",
    });
  });

  it("read the variable named by api_key_env, and treat empty values as unset", () => {
    const env = { TEAM_KEY: "sk-team", OPENAI_API_KEY: "" };
    expect(resolveCredentials("openai", { api_key_env: "TEAM_KEY" }, env).apiKey).toBe("sk-team");
    expect(resolveCredentials("openai", undefined, env)).toEqual({
      apiKeySource: "none",
      baseUrl: undefined,
    });
  });

  it("let openai-responses use OpenAI's variables", () => {
    expect(resolveCredentials("openai-responses", undefined, { OPENAI_API_KEY: "sk-o" }).apiKeySource).toBe(
      "env:OPENAI_API_KEY",
    );
  });

  it("collect every reachable key value for redaction, longest first", () => {
    const config = unwrap(
      addModel(
        unwrap(
          addModel(defaultProjectConfig(), { provider: "openai", model_id: "gpt-5", api_key: "sk-short" }),
        ),
        { provider: "anthropic", model_id: "claude", api_key_env: "CLAUDE_KEY" },
      ),
    );
    const env = {
      CLAUDE_KEY: "sk-claude-longer-key",
      OPENAI_API_KEY: "sk-openai-env",
      GH: "ghp_x",
      UNRELATED: "u",
    };
    expect(secretValues(config, env, ["GH"])).toEqual([
      "sk-claude-longer-key",
      "sk-openai-env",
      "sk-short",
      "ghp_x",
    ]);
  });
});

describe("project config file", () => {
  it("is the default config when the project has none", async () => {
    const result = await loadProjectConfig(root);
    expect(result).toEqual({ ok: true, config: defaultProjectConfig() });
    if (result.ok) expect(result.config.guardrail.rules).toEqual(DEFAULT_GUARDRAIL_RULES);
  });

  it("saves 0600 in a 0700 folder and loads back what was saved", async () => {
    let config = unwrap(
      addModel(defaultProjectConfig(), {
        name: "GPT-5",
        provider: "openai",
        model_id: "gpt-5",
        api_key: "sk-secret-123",
        context_window: 400000,
        max_tokens: 128000,
        vision: true,
        prices: { input_per_mtok: 1.25, output_per_mtok: 10, cache_read_per_mtok: 0.125 },
      }),
    );
    config = unwrap(setDefaultModel(config, "openai/gpt-5"));
    config = unwrap(setVisionModel(config, "openai/gpt-5"));
    const file = await saveProjectConfig(root, config);
    expect(file).toBe(projectConfigFile(root));
    if (process.platform !== "win32") {
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect((await stat(dirname(file))).mode & 0o777).toBe(0o700);
    }
    expect(await loadProjectConfig(root)).toEqual({ ok: true, config });
  });

  it("reports an invalid file with line, column and field, and loads nothing", async () => {
    const file = projectConfigFile(root);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(
      file,
      "models:\n  - provider: openai\n    model_id: gpt-5\n    base_url: not a url\n  - provider: openai\n    model_id: gpt-5\ndefault_model: gpt-5\n",
    );
    const result = await loadProjectConfig(root);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => [e.path, e.line, e.column])).toEqual([
      ["models[0].base_url", 4, 15],
      ["models[1]", 5, 5],
      ["default_model", 7, 16],
    ]);
    expect(result.errors[1].message).toMatch(/duplicate model "openai\/gpt-5"/);
    expect(result.errors[2].message).toMatch(/provider\/model_id/);
  });

  it("rejects a guardrail rule whose pattern is not a regular expression", async () => {
    const file = projectConfigFile(root);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, "guardrail:\n  rules:\n    - name: x\n      pattern: 'rm ('\n      message: no\n");
    const result = await loadProjectConfig(root);
    expect(result.ok ? [] : result.errors.map((e) => [e.path, e.line])).toEqual([
      ["guardrail.rules[0].pattern", 4],
    ]);
  });

  it("writes keys only into a private file, never beside a readable copy", async () => {
    const config = unwrap(
      addModel(defaultProjectConfig(), { provider: "x", model_id: "m", api_key: "sk-private" }),
    );
    const file = await saveProjectConfig(root, config);
    expect(await readFile(file, "utf8")).toContain("sk-private");
  });
});

describe("editing the model list", () => {
  it("adds, replaces, finds and removes models without touching the input", () => {
    const empty = defaultProjectConfig();
    const one = unwrap(addModel(empty, { provider: "openai", model_id: "gpt-5" }));
    expect(empty.models).toEqual([]);
    expect(findModel(one, "openai", "gpt-5")?.vision).toBe(false);
    const replaced = unwrap(addModel(one, { provider: "openai", model_id: "gpt-5", vision: true }));
    expect(replaced.models).toHaveLength(1);
    expect(findModel(replaced, "openai", "gpt-5")?.vision).toBe(true);
    const withRefs = unwrap(
      setVisionModel(unwrap(setDefaultModel(replaced, "openai/gpt-5")), "openai/gpt-5"),
    );
    const removed = unwrap(removeModel(withRefs, "openai", "gpt-5"));
    expect(removed.models).toEqual([]);
    expect(removed.default_model).toBeUndefined();
    expect(removed.vision_model).toBeUndefined();
  });

  it("explains refused changes", () => {
    const config = unwrap(addModel(defaultProjectConfig(), { provider: "deepseek", model_id: "chat" }));
    expect(addModel(config, { provider: "bad name", model_id: "x" })).toMatchObject({ ok: false });
    expect(removeModel(config, "openai", "nope")).toEqual({ ok: false, message: 'no model "openai/nope"' });
    expect(setDefaultModel(config, "deepseek")).toMatchObject({ ok: false });
    expect(setVisionModel(config, "openai/gpt-5")).toMatchObject({
      ok: false,
      message: expect.stringMatching(/add it/),
    });
    expect(setVisionModel(config, "deepseek/chat")).toMatchObject({
      ok: false,
      message: expect.stringMatching(/vision/),
    });
  });

  it("derives a model's wire protocol from its provider unless api says otherwise", () => {
    expect(providerApi({ provider: "anthropic" })).toBe("anthropic");
    expect(providerApi({ provider: "deepseek" })).toBe("openai-compatible");
    expect(providerApi({ provider: "azure", api: "openai-responses" })).toBe("openai-responses");
  });
});

describe("credential environment variables count as secrets", () => {
  it("a key given only through the environment is redacted too", () => {
    const env = {
      OPENAI_API_KEY: "sk-env-only-0123456789",
      GITHUB_TOKEN: "ghp_abcdefgh12345",
      SHORT_KEY: "abc",
      HOME: "/root",
    };
    const values = secretValues(defaultProjectConfig(), env);
    expect(values).toContain("sk-env-only-0123456789");
    expect(values).toContain("ghp_abcdefgh12345");
    // Too short to redact safely, and not a credential name.
    expect(values).not.toContain("abc");
    expect(values).not.toContain("/root");
    expect(credentialEnvValues({ PATH: "/usr/bin:/bin", DB_PASSWORD: "hunter2hunter2" })).toEqual([
      "hunter2hunter2",
    ]);
  });
});
