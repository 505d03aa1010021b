import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { presetToolDefinitions } from "@penguin/state";
import { beforeEach, describe, expect, test } from "vitest";
import { parse, stringify } from "yaml";
import { tempDir } from "./helpers.js";
import { cli, cliOnTerminal } from "./trace-fixtures.js";

const API_KEY = "sk-test-penguin-0123456789abcdef";
/** The nine core tools and update_plan. */
const DEFAULT_TOOL_COUNT = 10;

describe("penguin config models, default-model and vision-model", () => {
  let dataRoot: string;
  const run = (args: string[], opts: { input?: string; env?: Record<string, string> } = {}) =>
    cli([...args, "--data-dir", dataRoot], opts);
  const projectFile = () => join(dataRoot, "projects", "default", "project.yaml");

  beforeEach(() => {
    dataRoot = tempDir("config");
  });

  test("add, list, default, vision and remove round trip; the file is 0600 and the key is never printed", async () => {
    const added = await run([
      "config",
      "models",
      "add",
      "deepseek/deepseek-chat",
      "--base-url",
      "https://api.deepseek.example/v1",
      "--api-key",
      API_KEY,
      "--context-window",
      "64000",
      "--max-tokens",
      "8000",
      "--price-input",
      "0.27",
      "--price-output",
      "1.1",
    ]);
    expect(added.exitCode).toBe(0);
    expect(added.stdout).toContain("added deepseek/deepseek-chat");
    expect(added.stdout).toContain("****cdef");
    const vision = await run([
      "config",
      "models",
      "add",
      "openai/gpt-vision",
      "--api-key-env",
      "MY_OPENAI_KEY",
      "--vision",
    ]);
    expect(vision.exitCode).toBe(0);
    expect(statSync(projectFile()).mode & 0o777).toBe(0o600);
    const saved = parse(readFileSync(projectFile(), "utf8"));
    expect(saved.models).toHaveLength(2);
    expect(saved.models[0]).toMatchObject({
      provider: "deepseek",
      model_id: "deepseek-chat",
      api_key: API_KEY,
      context_window: 64000,
      max_tokens: 8000,
      prices: { input_per_mtok: 0.27, output_per_mtok: 1.1 },
    });

    expect((await run(["config", "default-model", "deepseek/deepseek-chat"])).exitCode).toBe(0);
    expect((await run(["config", "vision-model", "openai/gpt-vision"])).exitCode).toBe(0);

    const list = await run(["config", "models", "list"], { env: { MY_OPENAI_KEY: "set-in-env" } });
    expect(list.exitCode).toBe(0);
    expect(list.stdout).toMatch(
      /deepseek\/deepseek-chat \(default\)\s+openai-compatible\s+\*\*\*\*cdef \(in the config file\)\s+64000\s+8000\s+0\.27 \/ 1\.1\s+https:\/\/api\.deepseek\.example\/v1/,
    );
    expect(list.stdout).toMatch(/openai\/gpt-vision \(vision\)\s+openai\s+\$MY_OPENAI_KEY \(set\)/);
    expect(list.stdout).toContain("default model: deepseek/deepseek-chat");
    expect(list.stdout).toContain("vision model: openai/gpt-vision");
    const json = await run(["config", "models", "list", "--json"]);
    expect(JSON.parse(json.stdout).models[0].api_key).toBe("****cdef");
    expect((await run(["config", "default-model"])).stdout.trim()).toBe("deepseek/deepseek-chat");
    for (const r of [added, vision, list, json]) expect(r.stdout + r.stderr).not.toContain(API_KEY);

    const removed = await run(["config", "models", "remove", "deepseek/deepseek-chat"]);
    expect(removed.exitCode).toBe(0);
    expect(removed.stdout).toContain("it was the default model, now unset");
    const after = parse(readFileSync(projectFile(), "utf8"));
    expect(after.models.map((m: { model_id: string }) => m.model_id)).toEqual(["gpt-vision"]);
    expect(after.default_model).toBeUndefined();
    expect(after.vision_model).toBe("openai/gpt-vision");
    expect(statSync(projectFile()).mode & 0o777).toBe(0o600);
  });

  test("--api-key - reads the key from stdin", async () => {
    const r = await run(["config", "models", "add", "anthropic/claude-test", "--api-key", "-"], {
      input: `${API_KEY}\n`,
    });
    expect(r.exitCode).toBe(0);
    expect(parse(readFileSync(projectFile(), "utf8")).models[0].api_key).toBe(API_KEY);
    expect(r.stdout).not.toContain(API_KEY);
  });

  test.each([
    [["config", "models", "add", "gpt-5"], /invalid model "gpt-5": use provider\/model-id/],
    [
      ["config", "models", "add", "openai/x", "--context-window", "lots"],
      /--context-window takes a positive whole number, not "lots"/,
    ],
    [
      ["config", "models", "add", "openai/x", "--price-input", "1"],
      /prices need both --price-input and --price-output/,
    ],
    [
      ["config", "models", "add", "openai/x", "--price-input", "-1", "--price-output", "2"],
      /--price-input takes a price/,
    ],
    [["config", "models", "add", "openai/x", "--api", "grpc"], /unknown --api "grpc": use one of openai, /],
    [
      ["config", "models", "add", "openai/x", "--base-url", "ftp://x"],
      /invalid model base_url: an http\(s\) URL/,
    ],
    [
      ["config", "models", "remove", "openai/absent"],
      /no model "openai\/absent" in .*project\.yaml: it lists no models/,
    ],
    [["config", "default-model", "nonsense"], /invalid model "nonsense"/],
  ])("bad usage exits 2 with one line: %j", async (args, message) => {
    const r = await run(args);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });

  test("a vision model must be listed and marked --vision", async () => {
    await run(["config", "models", "add", "openai/text-only"]);
    const r = await run(["config", "vision-model", "openai/text-only"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/not marked vision: true .*--vision/);
  });

  test("an invalid project.yaml is reported as file:line:column: path: message, exit 2", async () => {
    mkdirSync(join(dataRoot, "projects", "default"), { recursive: true });
    writeFileSync(
      projectFile(),
      "models:\n  - provider: openai\n    model_id: x\n    context_window: lots\n",
    );
    const r = await run(["config", "models", "list"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`${projectFile()}:4:21: models[0].context_window:`);
    // Nothing was rewritten while reporting.
    expect(readFileSync(projectFile(), "utf8")).toContain("context_window: lots");
  });
});

describe("penguin config show, defaults and tools sync", () => {
  let dataRoot: string;
  const run = (args: string[]) => cli([...args, "--data-dir", dataRoot]);
  const agentFile = (id: string) => join(dataRoot, "agents", id, "system_config.yaml");
  const writeAgent = (id: string, text: string) => {
    mkdirSync(join(dataRoot, "agents", id), { recursive: true });
    writeFileSync(agentFile(id), text);
  };

  beforeEach(() => {
    dataRoot = tempDir("agent");
  });

  test("config show creates the default agent on demand and prints its effective config", async () => {
    const r = await run(["config", "show"]);
    expect(r.exitCode).toBe(0);
    expect(statSync(agentFile("default")).mode & 0o777).toBe(0o600);
    expect(r.stdout).toContain(`# agent "default": ${agentFile("default")}`);
    const shown = parse(r.stdout);
    expect(shown.max_turns).toBe(-1);
    expect(shown.model.thinking_level).toBe("medium");
    expect(shown.tools.builtin).toHaveLength(DEFAULT_TOOL_COUNT);
    expect(r.stdout).not.toContain("tools.builtin is omitted");
  });

  test("config show notes that the defaults are in effect when tools.builtin is omitted, and masks secrets", async () => {
    writeAgent(
      "lean",
      stringify({
        max_turns: 5,
        tools: {
          mcpServers: [
            {
              name: "docs",
              config: {
                transport: "http",
                url: "https://mcp.example/",
                headers: { Authorization: `Bearer ${API_KEY}` },
              },
            },
          ],
        },
      }),
    );
    const r = await run(["config", "show", "--agent", "lean"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("# tools.builtin is omitted: the default toolset is in effect");
    expect(r.stdout).toContain("exec_command, input_command, read_file");
    expect(parse(r.stdout).max_turns).toBe(5);
    expect(parse(r.stdout).tools.mcpServers[0].config.headers.Authorization).toBe("****cdef");
    expect(r.stdout).not.toContain(API_KEY);
  });

  test("config show for an agent that does not exist names the agents that do", async () => {
    await run(["config", "show"]);
    const r = await run(["config", "show", "--agent", "ghost"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/no agent "ghost" under .*: the agents are default/);
    const bad = await run(["config", "show", "--agent", "../etc"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/invalid agent id "\.\.\/etc"/);
  });

  test("an invalid system_config.yaml is reported with its line and column, exit 2", async () => {
    writeAgent("broken", "name: broken\nmax_turns: [1, 2\nmodel: {}\n");
    const yamlError = await run(["config", "show", "--agent", "broken"]);
    expect(yamlError.exitCode).toBe(2);
    expect(yamlError.stderr).toMatch(
      new RegExp(`^${escapeRegExp(agentFile("broken"))}:\\d+:\\d+: invalid YAML`, "m"),
    );

    writeAgent("wrong", "name: wrong\nmax_turns: lots\n");
    const schemaError = await run(["config", "show", "--agent", "wrong"]);
    expect(schemaError.exitCode).toBe(2);
    expect(schemaError.stderr).toMatch(
      new RegExp(`^${escapeRegExp(agentFile("wrong"))}:2:12: max_turns: `, "m"),
    );
  });

  test("config defaults prints YAML with the default tools", async () => {
    const r = await run(["config", "defaults"]);
    expect(r.exitCode).toBe(0);
    const defaults = parse(r.stdout);
    expect(defaults.tools.builtin).toHaveLength(DEFAULT_TOOL_COUNT);
    expect(defaults.tools.builtin.map((t: { name: string }) => t.name)).toEqual(
      presetToolDefinitions("core").map((t) => t.name),
    );
    expect(typeof defaults.system_prompt).toBe("string");
  });

  describe("tools sync on an agent whose list lacks two default tools", () => {
    const lacking = ["input_subagent", "describe_image"];
    let original: string;

    beforeEach(() => {
      const tools = presetToolDefinitions("core").filter((t) => !lacking.includes(t.name));
      tools[0].description = "My own words for exec_command.";
      original = `# My agent: keep this comment.\nmax_turns: 7\n${stringify({ tools: { builtin: tools } }, { aliasDuplicateObjects: false })}`;
      writeAgent("mine", original);
    });

    test("without --yes and with no terminal it shows the change and changes nothing (a dry run)", async () => {
      const r = await run(["config", "tools", "sync", "--agent", "mine"]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain(`lacks 2 default tool(s): ${lacking.join(", ")}`);
      expect(r.stdout).toContain("+    - name: input_subagent");
      expect(r.stdout).toContain("+    - name: describe_image");
      expect(r.stdout).toContain("     - name: exec_command  # kept as written");
      expect(r.stderr).toContain("dry run: nothing changed");
      expect(readFileSync(agentFile("mine"), "utf8")).toBe(original);
    });

    test("on a terminal it asks: no changes nothing, yes adds the tools", async () => {
      const args = ["config", "tools", "sync", "--agent", "mine", "--data-dir", dataRoot];
      const declined = await cliOnTerminal(args, "n\n");
      expect(declined.output).toContain(`add ${lacking.join(", ")} to ${agentFile("mine")}? [y/N]`);
      expect(declined.exitCode).toBe(1);
      expect(readFileSync(agentFile("mine"), "utf8")).toBe(original);

      const confirmed = await cliOnTerminal(args, "y\n");
      expect(confirmed.exitCode).toBe(0);
      expect(confirmed.output).toContain(`added ${lacking.join(", ")}`);
      expect(parse(readFileSync(agentFile("mine"), "utf8")).tools.builtin).toHaveLength(DEFAULT_TOOL_COUNT);
    });

    test("with --yes it adds exactly those two and keeps the user's other edits", async () => {
      const r = await run(["config", "tools", "sync", "--agent", "mine", "--yes"]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain(`added ${lacking.join(", ")} to ${agentFile("mine")}`);
      const text = readFileSync(agentFile("mine"), "utf8");
      expect(text).toContain("# My agent: keep this comment.");
      const synced = parse(text);
      expect(synced.max_turns).toBe(7);
      const names = synced.tools.builtin.map((t: { name: string }) => t.name);
      expect(names).toHaveLength(DEFAULT_TOOL_COUNT);
      expect(names.slice(-2)).toEqual(lacking);
      expect(synced.tools.builtin[0].description).toBe("My own words for exec_command.");
      expect(statSync(agentFile("mine")).mode & 0o777).toBe(0o600);

      const again = await run(["config", "tools", "sync", "--agent", "mine"]);
      expect(again.stdout).toContain('agent "mine" has every default tool: nothing to sync');
    });
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
