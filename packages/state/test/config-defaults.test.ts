import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  configDefaultsFromSchemas,
  GENERATED_MODULE,
  generateConfigDefaultsModule,
} from "../scripts/gen-config-defaults.js";
import { agentFileText, withPresetTools } from "../src/agent-file-text.js";
import { DEFAULT_AGENT_FILE_TEXT } from "../src/config-defaults.generated.js";
import { type ConfigDefaultName, configDefault } from "../src/config-defaults.js";
import {
  createAgent,
  ensureDefaultAgent,
  formatConfigErrors,
  loadSystemConfig,
  systemConfigFile,
} from "../src/index.js";
import { yamlMemoFile } from "../src/yaml-memo.js";

// What a config that sets nothing means is made at build time from the schemas, and a user's first
// run writes the default agent's file from text made at build time, remembering its value beside
// it: neither that run nor the next one runs yaml over it, and neither builds a schema for it.

const PACKAGE_ROOT = join(import.meta.dirname, "..");

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "penguin-default-agent-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("the defaults made at build time", () => {
  it("are what the schemas give today, each handed out as a copy of its own", () => {
    const fromSchemas = configDefaultsFromSchemas();
    for (const name of Object.keys(fromSchemas) as ConfigDefaultName[]) {
      expect(configDefault(name), name).toStrictEqual(fromSchemas[name]);
    }
    const limits = configDefault("toolLimits");
    limits.jobs.maxJobs = 1;
    expect(configDefault("toolLimits").jobs.maxJobs).toBe(fromSchemas.toolLimits.jobs.maxJobs);
  });
});

describe("the default agent's file, written from the build's text", () => {
  it("the checked-in module is what the generator makes from the current schemas and tool definitions", async () => {
    const checkedIn = await readFile(join(PACKAGE_ROOT, GENERATED_MODULE), "utf8");
    // Stale: run `pnpm --filter @penguin/state gen:config-defaults`.
    expect(checkedIn === generateConfigDefaultsModule(), `${GENERATED_MODULE} is stale`).toBe(true);
    // Its escapes read back as the very text (backquotes in tool descriptions, the header's `sync`).
    expect(DEFAULT_AGENT_FILE_TEXT).toBe(agentFileText(withPresetTools({})));
  });

  it("is the file a new default agent gets, with its value remembered and read back the same", async () => {
    const created = await ensureDefaultAgent(root);
    if (!created.ok) throw new Error(formatConfigErrors(created.errors));
    const file = systemConfigFile(root, "default");
    const text = await readFile(file, "utf8");
    expect(text).toBe(DEFAULT_AGENT_FILE_TEXT);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // The memo holds exactly what the YAML says, so a load from it and one from the YAML agree.
    const memo = JSON.parse(await readFile(yamlMemoFile(file), "utf8")) as { value: unknown };
    expect(memo.value).toEqual(parse(text));
    const fromMemo = await loadSystemConfig(file);
    await rm(yamlMemoFile(file));
    const fromYaml = await loadSystemConfig(file);
    expect(fromMemo).toEqual({ ok: true, config: created.agent.config });
    expect(fromYaml).toEqual(fromMemo);
  });

  it("an agent created with a config of its own is written from that config", async () => {
    const created = await createAgent(root, "brief", { max_turns: 3, tools: { preset: "extended" } });
    if (!created.ok) throw new Error(created.message);
    const text = await readFile(created.agent.file, "utf8");
    expect(text).not.toBe(DEFAULT_AGENT_FILE_TEXT);
    expect(text.startsWith("# Penguin agent configuration")).toBe(true);
    const loaded = await loadSystemConfig(created.agent.file);
    expect(loaded).toEqual({ ok: true, config: created.agent.config });
    if (!loaded.ok) return;
    expect(loaded.config.max_turns).toBe(3);
    expect(loaded.config.tools.builtin?.map((tool) => tool.name)).toContain("list_files");
  });
});
