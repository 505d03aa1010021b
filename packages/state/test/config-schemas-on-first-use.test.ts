import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

// A start builds none of the configuration's zod schemas (some 430 of them, about 20 ms of every
// `penguin run`): a config file that sets nothing takes the build's defaults (config-defaults.ts),
// and a file that the same code checked before takes the checked config remembered beside it
// (yaml-memo.ts). zod is replaced by itself with its schema functions counted (every schema is
// built through one: `z.object`, `z.string`, `z.enum`, ...), and each test loads the package afresh.

const built = vi.hoisted(() => ({ count: 0 }));

vi.mock("zod", async (importOriginal) => {
  const real = await importOriginal<typeof import("zod")>();
  const counted = new Proxy(real.z, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== "function" || typeof key !== "string" || !/^[a-z]/.test(key)) return value;
      return (...args: unknown[]) => {
        built.count += 1;
        return (value as (...a: unknown[]) => unknown)(...args);
      };
    },
  });
  return { ...real, z: counted };
});

/** The package as a new process loads it: no schema built, no checking code named. */
async function freshState() {
  vi.resetModules();
  built.count = 0;
  return import("../src/index.js");
}

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "penguin-config-first-use-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("the configuration's schemas, built on first use", () => {
  it("are not built by loading the package, nor by a first run that finds no config", async () => {
    const state = await freshState();
    expect(built.count).toBe(0);
    const agent = await state.ensureDefaultAgent(root);
    if (!agent.ok) throw new Error(state.formatConfigErrors(agent.errors));
    const project = await state.loadProjectConfig(root);
    expect(project.ok).toBe(true);
    const { config } = agent.agent;
    expect(state.resolveToolLimits(config).jobs.maxJobs).toBe(state.DEFAULT_JOBS_MAX_JOBS);
    expect(state.resolveMcpToolBudget(config.tools).warnToolCount).toBe(state.DEFAULT_MCP_WARN_TOOL_COUNT);
    expect(state.defaultHooksSection().before_tool).toEqual([]);
    expect(Object.keys(state.executionProfilesOf(config.exec.profiles))).toEqual(["native", "sandbox"]);
    expect(built.count).toBe(0);
  });

  it("give the same first-run config as the schemas do", async () => {
    const state = await freshState();
    const agent = await state.ensureDefaultAgent(root);
    if (!agent.ok) throw new Error(state.formatConfigErrors(agent.errors));
    const project = await state.loadProjectConfig(root);
    const { SystemConfigSchema, ProjectConfigSchema } = await import("../src/schemas.js");
    const text = await readFile(state.systemConfigFile(root, "default"), "utf8");
    const fromYaml = state.parseSystemConfig(text, "system_config.yaml");
    expect(fromYaml).toStrictEqual({ ok: true, config: agent.agent.config });
    expect(agent.agent.config).toStrictEqual(SystemConfigSchema.parse(fromYaml.ok ? fromYaml.config : {}));
    expect(project).toStrictEqual({ ok: true, config: ProjectConfigSchema.parse({}) });
  });

  it("are built once when a parse needs them, and the schemas entry holds the same ones", async () => {
    const state = await freshState();
    expect(state.parseSystemConfig("max_turns: 3\n", "a.yaml").ok).toBe(true);
    const afterFirst = built.count;
    expect(afterFirst).toBeGreaterThan(50);
    expect(state.parseSystemConfig("max_turns: 0\n", "a.yaml").ok).toBe(false);
    expect(state.systemConfigSchemas()).toBe(state.systemConfigSchemas());
    expect(built.count).toBe(afterFirst);
    const schemas = await import("../src/schemas.js");
    expect(schemas.SystemConfigSchema).toBe(state.systemConfigSchemas().SystemConfigSchema);
    expect(schemas.ProjectConfigSchema).toBe(state.projectConfigSchemas().ProjectConfigSchema);
  });
});

describe("a checked config remembered for the code that checked it", () => {
  const yaml = "max_turns: 7\nmodel:\n  thinking_level: low\n";

  async function writeAgent(text: string): Promise<string> {
    const file = join(root, "agents", "mine", "system_config.yaml");
    const state = await freshState();
    await state.createAgent(root, "mine", { max_turns: 1 });
    await writeFile(file, text);
    return file;
  }

  it("is used by the next load of the same text by the same code, without building a schema", async () => {
    const file = await writeAgent(yaml);
    let state = await freshState();
    state.rememberCheckedConfigs("code-a");
    const first = await state.loadSystemConfig(file);
    expect(built.count).toBeGreaterThan(0);
    if (!first.ok) throw new Error(state.formatConfigErrors(first.errors));
    expect(first.config.max_turns).toBe(7);

    state = await freshState();
    state.rememberCheckedConfigs("code-a");
    expect(await state.loadSystemConfig(file)).toStrictEqual(first);
    expect(built.count).toBe(0);
  });

  it("is checked again by other code, by code that names none, and after the text changes", async () => {
    const file = await writeAgent(yaml);
    let state = await freshState();
    state.rememberCheckedConfigs("code-a");
    const first = await state.loadSystemConfig(file);

    for (const code of ["code-b", undefined]) {
      state = await freshState();
      state.rememberCheckedConfigs(code);
      expect(await state.loadSystemConfig(file)).toStrictEqual(first);
      expect(built.count, `code ${code}`).toBeGreaterThan(0);
    }

    // An edit makes the memo stale: the new text is checked, and an invalid one reported from the YAML.
    await writeFile(file, "max_turns: 0\n");
    state = await freshState();
    state.rememberCheckedConfigs("code-b");
    const edited = await state.loadSystemConfig(file);
    expect(edited.ok).toBe(false);
    if (!edited.ok) expect(edited.errors[0]).toMatchObject({ line: 1, path: "max_turns" });
    state = await freshState();
    state.rememberCheckedConfigs("code-b");
    expect((await state.loadSystemConfig(file)).ok).toBe(false);
  });

  it("is kept only by a program that names its code, in the private memo file", async () => {
    const file = await writeAgent(yaml);
    const { yamlMemoFile } = await import("../src/yaml-memo.js");
    let state = await freshState();
    await state.loadSystemConfig(file);
    const plain = JSON.parse(await readFile(yamlMemoFile(file), "utf8")) as Record<string, unknown>;
    expect(plain.checked).toBeUndefined();

    state = await freshState();
    state.rememberCheckedConfigs("code-a");
    const loaded = await state.loadSystemConfig(file);
    const memo = JSON.parse(await readFile(yamlMemoFile(file), "utf8")) as {
      checked: { code: string; config: unknown };
    };
    expect(memo.checked.code).toBe("code-a");
    expect(loaded).toStrictEqual({ ok: true, config: memo.checked.config });
  });
});
