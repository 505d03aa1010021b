import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ensureDefaultAgent,
  formatConfigErrors,
  loadProjectConfig,
  loadSystemConfig,
  projectConfigFile,
  saveProjectConfig,
  systemConfigFile,
} from "../src/index.js";
import { YAML_MEMO_FORMAT, yamlMemoFile } from "../src/yaml-memo.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "penguin-yaml-memo-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

async function readMemo(file: string): Promise<{ format: number; sha256: string; value: unknown }> {
  return JSON.parse(await readFile(yamlMemoFile(file), "utf8"));
}

describe("the parsed value of a config file, remembered beside it", () => {
  it("is written at the first load, as a private file holding the YAML's value and its text's hash", async () => {
    const file = join(dir, "system_config.yaml");
    const text = "system_prompt: |\n  Be brief.\nmax_turns: 7\n";
    await writeFile(file, text);
    const loaded = await loadSystemConfig(file);
    expect(loaded.ok).toBe(true);
    const memo = await readMemo(file);
    expect(memo).toEqual({
      format: YAML_MEMO_FORMAT,
      sha256: sha256(text),
      value: { system_prompt: "Be brief.\n", max_turns: 7 },
    });
    expect((await stat(yamlMemoFile(file))).mode & 0o777).toBe(0o600);
    // No temporary file is left beside it.
    expect((await readdir(dir)).sort()).toEqual([".system_config.yaml.parsed.json", "system_config.yaml"]);
  });

  it("loads the same config from the memo as from the YAML", async () => {
    const root = join(dir, "data");
    const created = await ensureDefaultAgent(root);
    if (!created.ok) throw new Error(formatConfigErrors(created.errors));
    // The creation remembered the file's value: without that memo, the first load parses the YAML.
    await rm(yamlMemoFile(systemConfigFile(root, "default")));
    const fromYaml = await loadSystemConfig(systemConfigFile(root, "default"));
    const fromMemo = await loadSystemConfig(systemConfigFile(root, "default"));
    expect(fromYaml).toEqual({ ok: true, config: created.agent.config });
    expect(fromMemo).toEqual(fromYaml);
    expect((await readMemo(systemConfigFile(root, "default"))).sha256).toBe(
      sha256(await readFile(systemConfigFile(root, "default"), "utf8")),
    );
  });

  it("is what a load of exactly that text returns, without parsing the YAML again", async () => {
    const file = join(dir, "system_config.yaml");
    const text = "max_turns: 7\n";
    await writeFile(file, text);
    await loadSystemConfig(file);
    // A memo for this very text that says something else: only a load that reads the memo sees it.
    await writeFile(
      yamlMemoFile(file),
      JSON.stringify({ format: YAML_MEMO_FORMAT, sha256: sha256(text), value: { max_turns: 9 } }),
    );
    const loaded = await loadSystemConfig(file);
    expect(loaded.ok && loaded.config.max_turns).toBe(9);
  });

  it("is ignored, and written again, once the file's text changes", async () => {
    const file = join(dir, "system_config.yaml");
    await writeFile(file, "max_turns: 7\n");
    await loadSystemConfig(file);
    await writeFile(file, "max_turns: 8\n");
    const loaded = await loadSystemConfig(file);
    expect(loaded.ok && loaded.config.max_turns).toBe(8);
    expect(await readMemo(file)).toMatchObject({ sha256: sha256("max_turns: 8\n"), value: { max_turns: 8 } });
  });

  it("is ignored when torn, of another format, or not an object", async () => {
    const file = join(dir, "system_config.yaml");
    const text = "max_turns: 7\n";
    await writeFile(file, text);
    for (const memo of [
      '{"format":1,"sha256":"',
      JSON.stringify({ format: YAML_MEMO_FORMAT + 1, sha256: sha256(text), value: { max_turns: 9 } }),
      "null",
      "[]",
    ]) {
      await writeFile(yamlMemoFile(file), memo);
      const loaded = await loadSystemConfig(file);
      expect(loaded.ok && loaded.config.max_turns).toBe(7);
    }
  });

  it("reports an invalid config with the YAML's lines, memo or not", async () => {
    const file = join(dir, "system_config.yaml");
    await writeFile(file, "max_turns: 7\nmax_turn: 3\n");
    const first = await loadSystemConfig(file);
    const second = await loadSystemConfig(file);
    expect(first.ok).toBe(false);
    expect(second).toEqual(first);
    expect(first.ok ? "" : formatConfigErrors(first.errors)).toContain(
      `${file}:2:1: max_turn: unknown field`,
    );
    // The memo is the YAML's value, kept whether or not the schema accepts it.
    expect((await readMemo(file)).value).toEqual({ max_turns: 7, max_turn: 3 });
  });

  it("is not written for invalid YAML, nor for a value JSON cannot carry exactly", async () => {
    const broken = join(dir, "broken.yaml");
    await writeFile(broken, "max_turns: [7\n");
    expect((await loadSystemConfig(broken)).ok).toBe(false);
    const infinite = join(dir, "infinite.yaml");
    await writeFile(infinite, "compaction:\n  threshold: .inf\n");
    await loadSystemConfig(infinite);
    expect((await readdir(dir)).sort()).toEqual(["broken.yaml", "infinite.yaml"]);
  });

  it("keeps a project config's keys in a private file beside it, and follows its edits", async () => {
    const root = join(dir, "data");
    const model = {
      provider: "p",
      api: "openai" as const,
      model_id: "m",
      api_key: "sk-secret-1",
      vision: false,
    };
    await saveProjectConfig(root, { ...(await loadDefault(root)), models: [model] });
    const first = await loadProjectConfig(root);
    expect(first.ok && first.config.models[0]?.api_key).toBe("sk-secret-1");
    const file = projectConfigFile(root);
    expect((await stat(yamlMemoFile(file))).mode & 0o777).toBe(0o600);
    await saveProjectConfig(root, {
      ...(await loadDefault(root)),
      models: [{ ...model, api_key: "sk-secret-2" }],
    });
    const second = await loadProjectConfig(root);
    expect(second.ok && second.config.models[0]?.api_key).toBe("sk-secret-2");
    expect(JSON.stringify(await readMemo(file))).not.toContain("sk-secret-1");
  });
});

async function loadDefault(root: string) {
  const loaded = await loadProjectConfig(root);
  if (!loaded.ok) throw new Error(formatConfigErrors(loaded.errors));
  return loaded.config;
}
