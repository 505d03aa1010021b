import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  createAgent,
  defaultToolDefinitions,
  ensureDefaultAgent,
  listAgents,
  loadAgent,
  presetToolDefinitions,
  syncAgentTools,
  systemConfigFile,
} from "../src/index.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "penguin-agents-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("createAgent", () => {
  it("writes system_config.yaml 0600 with the full default tool list, frozen from then on", async () => {
    const created = await createAgent(root, "coder", { name: "Coder", max_turns: 50 });
    expect(created.ok).toBe(true);
    const file = systemConfigFile(root, "coder");
    if (process.platform !== "win32") {
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect((await stat(dirname(file))).mode & 0o777).toBe(0o700);
    }
    const text = await readFile(file, "utf8");
    expect(text).toMatch(/^# Penguin agent configuration/);
    expect(text).toMatch(/frozen/);
    expect(parse(text).tools.builtin).toEqual(presetToolDefinitions("core"));
    const loaded = await loadAgent(root, "coder");
    expect(loaded.ok && loaded.agent.config.tools.builtin).toEqual(presetToolDefinitions("core"));
    expect(loaded.ok && loaded.agent.config.max_turns).toBe(50);
  });

  it("keeps a tool list the caller brings", async () => {
    const builtin = defaultToolDefinitions().slice(2, 4);
    await createAgent(root, "reader", { tools: { builtin } });
    const loaded = await loadAgent(root, "reader");
    expect(loaded.ok && loaded.agent.config.tools.builtin?.map((t) => t.name)).toEqual([
      "read_file",
      "edit_file",
    ]);
  });

  it("never replaces an existing agent and refuses bad ids and configs", async () => {
    await createAgent(root, "a", { name: "first" });
    expect(await createAgent(root, "a", { name: "second" })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/already exists/),
    });
    const loaded = await loadAgent(root, "a");
    expect(loaded.ok && loaded.agent.config.name).toBe("first");
    expect(await createAgent(root, "../escape")).toMatchObject({
      ok: false,
      message: expect.stringMatching(/invalid agent id/),
    });
    expect(await createAgent(root, "b", { max_turns: 0 })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/max_turns/),
    });
    expect(await listAgents(root)).toEqual(["a"]);
  });
});

describe("loading agents", () => {
  it("reports an invalid agent file precisely instead of loading part of it", async () => {
    const file = systemConfigFile(root, "broken");
    await mkdir(dirname(file), { recursive: true });
    await writeFile(
      file,
      "max_turns: 3\ntools:\n  builtin:\n    - name: exec_command\n      permission: rw\n",
    );
    const loaded = await loadAgent(root, "broken");
    expect(loaded.ok).toBe(false);
    if (loaded.ok) return;
    expect(loaded.errors.map((e) => e.path)).toEqual([
      "tools.builtin[0].description",
      "tools.builtin[0].parameters",
    ]);
    expect(loaded.errors[0]).toMatchObject({ file, line: 4, column: 7 });
  });

  it("lists the folders that hold an agent config, sorted", async () => {
    expect(await listAgents(root)).toEqual([]);
    await createAgent(root, "zeta");
    await createAgent(root, "alpha");
    await mkdir(join(root, "agents", "empty-folder"), { recursive: true });
    expect(await listAgents(root)).toEqual(["alpha", "zeta"]);
  });

  it("creates the default agent on demand, once, even when asked concurrently", async () => {
    const results = await Promise.all([
      ensureDefaultAgent(root),
      ensureDefaultAgent(root),
      ensureDefaultAgent(root),
    ]);
    for (const result of results) expect(result.ok && result.agent.id).toBe("default");
    expect(await listAgents(root)).toEqual(["default"]);
    const before = await readFile(systemConfigFile(root, "default"), "utf8");
    await ensureDefaultAgent(root);
    expect(await readFile(systemConfigFile(root, "default"), "utf8")).toBe(before);
  });
});

describe("syncAgentTools", () => {
  it("appends the default tools an old agent lacks and keeps the user's edits and comments", async () => {
    const file = systemConfigFile(root, "old");
    const oldList = defaultToolDefinitions().filter(
      (t) => !["read_image", "describe_image"].includes(t.name),
    );
    oldList[0].description = "My wording for exec.";
    const text = `# my notes about this agent\nmax_turns: 7\ntools:\n  builtin: ${JSON.stringify(oldList)}\n`;
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);

    const synced = await syncAgentTools(root, "old");
    expect(synced).toEqual({ ok: true, added: ["read_image", "describe_image", "update_plan"], file });
    const after = await readFile(file, "utf8");
    expect(after).toContain("# my notes about this agent");
    const loaded = await loadAgent(root, "old");
    if (!loaded.ok) throw new Error("expected the synced file to load");
    expect(loaded.agent.config.max_turns).toBe(7);
    expect(loaded.agent.config.tools.builtin?.map((t) => t.name)).toEqual(
      presetToolDefinitions("core").map((t) => t.name),
    );
    expect(loaded.agent.config.tools.builtin?.[0].description).toBe("My wording for exec.");

    expect(await syncAgentTools(root, "old")).toEqual({ ok: true, added: [], file });
    expect(await readFile(file, "utf8")).toBe(after);
  });

  it("leaves an agent that follows the defaults (no tools.builtin) unchanged", async () => {
    const file = systemConfigFile(root, "follower");
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, "max_turns: 3\n");
    expect(await syncAgentTools(root, "follower")).toEqual({ ok: true, added: [], file });
    expect(await readFile(file, "utf8")).toBe("max_turns: 3\n");
  });

  it("refuses to edit an invalid file or a missing agent", async () => {
    const file = systemConfigFile(root, "bad");
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, "tools:\n  builtin: [\n");
    expect(await syncAgentTools(root, "bad")).toMatchObject({
      ok: false,
      message: expect.stringMatching(/invalid YAML/),
    });
    expect(await syncAgentTools(root, "ghost")).toMatchObject({
      ok: false,
      message: expect.stringMatching(/not found/),
    });
  });
});
