import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  type ConfigError,
  DEFAULT_SYSTEM_PROMPT,
  defaultSystemConfig,
  defaultToolDefinitions,
  formatConfigError,
  loadSystemConfig,
  parseSystemConfig,
  presetToolDefinitions,
  renderDefaultsYaml,
  resolveMcpToolBudget,
  resolveToolset,
  type SystemConfig,
  systemPromptTemplate,
} from "../src/index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "penguin-syscfg-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function expectOk(text: string): SystemConfig {
  const result = parseSystemConfig(text, "system_config.yaml");
  if (!result.ok) throw new Error(result.errors.map(formatConfigError).join("\n"));
  return result.config;
}

function expectErrors(text: string): ConfigError[] {
  const result = parseSystemConfig(text, "agents/a/system_config.yaml");
  expect(result.ok).toBe(false);
  expect("config" in result).toBe(false);
  return result.ok ? [] : result.errors;
}

const execEntry = (extra = "") => `tools:
  builtin:
    - name: exec_command
      description: Run a shell command in the workspace.
      permission: rw${extra}
      parameters:
        type: object
        properties:
          description: { type: string }
          cmd: { type: string }
        required: [description, cmd]
        additionalProperties: false
`;

describe("defaults", () => {
  it("fill every field of an empty file, and omitted tools.builtin means the full default toolset", () => {
    for (const text of ["", "{}\n", "# only a comment\n"]) {
      const config = expectOk(text);
      expect(config).toEqual(defaultSystemConfig());
    }
    const config = defaultSystemConfig();
    expect(config.max_turns).toBe(-1);
    expect(config.version).toBe(1);
    expect(config.model).toEqual({ max_tokens: 32000, thinking_level: "medium", timeoutMs: 120000 });
    expect(config.tools).toEqual({ mcpServers: [] });
    expect(config.approval).toBeUndefined();
    expect(systemPromptTemplate(config)).toBe(DEFAULT_SYSTEM_PROMPT);
    expect(resolveToolset(config)).toEqual(presetToolDefinitions("core"));
  });

  it("fill a tool entry's timeoutMs and maxOutputLength when they are omitted", () => {
    const [tool] = resolveToolset(expectOk(execEntry()));
    expect(tool.timeoutMs).toBe(120000);
    expect(tool.maxOutputLength).toBe(16000);
  });

  it("render as YAML that parses back to the defaults with the full tool list written out", () => {
    const text = renderDefaultsYaml();
    expect(text).not.toMatch(/[&*]a\d/); // no YAML anchors or aliases for users to trip over
    const config = expectOk(text);
    expect(config.tools.builtin).toEqual(presetToolDefinitions("core"));
    expect(config.system_prompt).toBe(DEFAULT_SYSTEM_PROMPT);
    expect(config.max_turns).toBe(-1);
  });
});

describe("tools.builtin", () => {
  it("replaces the defaults wholesale once written", () => {
    const toolset = resolveToolset(expectOk(execEntry()));
    expect(toolset.map((t) => t.name)).toEqual(["exec_command"]);
    expect(toolset[0].description).toBe("Run a shell command in the workspace.");
    expect(resolveToolset(expectOk("tools:\n  builtin: []\n"))).toEqual([]);
  });

  it("keeps unknown tool names for core to report instead of skipping them", () => {
    const text = execEntry().replace("name: exec_command", "name: exec_comand");
    expect(resolveToolset(expectOk(text)).map((t) => t.name)).toEqual(["exec_comand"]);
  });

  it("filters the description argument at assembly when call_description is false, without rewriting the file", async () => {
    const file = join(dir, "system_config.yaml");
    const text = execEntry("\n      call_description: false");
    await writeFile(file, text);
    const loaded = await loadSystemConfig(file);
    if (!loaded.ok) throw new Error("expected a valid config");
    const [tool] = resolveToolset(loaded.config);
    expect(tool.parameters.properties).toEqual({ cmd: { type: "string" } });
    expect(tool.parameters.required).toEqual(["cmd"]);
    // the parsed config and the file still declare the argument
    expect(loaded.config.tools.builtin?.[0].parameters.required).toEqual(["description", "cmd"]);
    expect(await readFile(file, "utf8")).toBe(text);
  });

  it("rejects duplicate tool names, naming both places", () => {
    const text = `${execEntry()}${execEntry().split("\n").slice(2).join("\n")}`;
    const [error] = expectErrors(text);
    expect(error.path).toBe("tools.builtin[1].name");
    expect(error.message).toMatch(/duplicate tool name "exec_command".*index 0/);
  });
});

describe("error reporting", () => {
  it("reports invalid YAML with yaml's own line and column", () => {
    const errors = expectErrors("max_turns: 5\nmodel:\n  thinking_level: [high\n");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      file: "agents/a/system_config.yaml",
      kind: "yaml",
      line: 4,
      column: 1,
    });
    expect(errors[0].message).toMatch(/^invalid YAML: /);
  });

  it("reports duplicate keys as invalid YAML at the second key", () => {
    const [error] = expectErrors("max_turns: 5\nmax_turns: 6\n");
    expect(error).toMatchObject({ kind: "yaml", line: 2, column: 1 });
  });

  it("names the missing parameters field of a tool entry, at the entry's line", () => {
    const text =
      "tools:\n  builtin:\n    - name: exec_command\n      description: run\n      permission: rw\n";
    const [error] = expectErrors(text);
    expect(error).toMatchObject({ path: "tools.builtin[0].parameters", line: 3, column: 7, kind: "schema" });
    expect(error.message).toBe('missing required field "parameters"');
    expect(formatConfigError(error)).toBe(
      'agents/a/system_config.yaml:3:7: tools.builtin[0].parameters: missing required field "parameters"',
    );
  });

  it("points a wrong value at the value and an unknown field at its key", () => {
    const text = "max_turns: 0\nmodel:\n  thinking_level: extreme\n  max_token: 5\n";
    const errors = expectErrors(text);
    expect(errors.map((e) => [e.path, e.line, e.column])).toEqual([
      ["max_turns", 1, 12],
      ["model.thinking_level", 3, 19],
      ["model.max_token", 4, 3],
    ]);
    expect(errors[0].message).toMatch(/-1 for unlimited/);
    expect(errors[1].message).toMatch(/"none"\|"low"\|"medium"\|"high"\|"max"/);
    expect(errors[2].message).toBe('unknown field "max_token"');
  });

  it("checks that a tool's required names are declared properties", () => {
    const text = execEntry().replace("required: [description, cmd]", "required: [description, command]");
    const [error] = expectErrors(text);
    expect(error.path).toBe("tools.builtin[0].parameters.required[1]");
    expect(error.message).toMatch(/"command", which is not in properties/);
    expect(error.line).toBe(11);
  });

  it("refuses a document whose aliases expand explosively instead of exhausting memory", () => {
    const levels = ["a: &a [x, x, x, x, x, x, x, x, x]"];
    for (const [name, prev] of [
      ["b", "a"],
      ["c", "b"],
      ["d", "c"],
      ["e", "d"],
    ]) {
      levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(", ")}]`);
    }
    const [error] = expectErrors(`${levels.join("\n")}\n`);
    expect(error).toMatchObject({ kind: "yaml", line: 1, column: 1 });
    expect(error.message).toMatch(/alias/i);
  });

  it("reports a document that is not a mapping", () => {
    const [error] = expectErrors("- a\n- b\n");
    expect(error).toMatchObject({ path: "", line: 1, column: 1 });
    expect(error.message).toMatch(/expected object/);
  });

  it("reports a missing file as an io error without a position", async () => {
    const result = await loadSystemConfig(join(dir, "nope.yaml"));
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.errors[0]).toMatchObject({ kind: "io", line: 0, message: "file not found" });
  });
});

describe("other sections", () => {
  it("parses approval, budgets and secrets", () => {
    const config = expectOk(
      "approval: { mode: read-only }\nbudget: { max_tokens: 100000, max_cost_usd: 2.5 }\nsubagent_budget: { max_wall_ms: 60000 }\nsecrets: [GITHUB_TOKEN]\n",
    );
    expect(config.approval).toEqual({ mode: "read-only" });
    expect(config.budget).toEqual({ max_tokens: 100000, max_cost_usd: 2.5 });
    expect(config.subagent_budget).toEqual({ max_wall_ms: 60000 });
    expect(config.secrets).toEqual(["GITHUB_TOKEN"]);
    const [error] = expectErrors("approval: { mode: yolo }\n");
    expect(error.path).toBe("approval.mode");
  });

  it("validates tools.mcpServers (name + config) and fills their defaults", () => {
    const config = expectOk(
      "tools:\n  mcpServers:\n    - name: files\n      config: { transport: stdio, command: mcp-files }\n    - name: web\n      config: { transport: http, url: 'https://mcp.example.com/x' }\n",
    );
    expect(config.tools.builtin).toBeUndefined();
    expect(config.tools.mcpServers[0]).toEqual({
      name: "files",
      config: {
        transport: "stdio",
        command: "mcp-files",
        args: [],
        connectTimeoutMs: 10000,
        permission: "auto",
      },
    });
    const errors = expectErrors(
      "tools:\n  mcpServers:\n    - name: a\n      config: { transport: ftp }\n    - name: b\n      config: { transport: sse, url: 'file:///etc/passwd' }\n",
    );
    expect(errors.map((e) => [e.path, e.line])).toEqual([
      ["tools.mcpServers[0].config.transport", 4],
      ["tools.mcpServers[1].config.url", 6],
    ]);
  });

  it("reads tools.mcpToolBudget, fills its defaults, and rejects bad values with their path", () => {
    expect(resolveMcpToolBudget(expectOk("tools: {}\n").tools)).toEqual({
      warnToolCount: 128,
      warnToolBytes: 32768,
      deferLoading: "auto",
      deferAboveTools: 40,
    });
    const config = expectOk("tools:\n  mcpToolBudget: { deferLoading: always, warnToolCount: 60 }\n");
    expect(resolveMcpToolBudget(config.tools)).toMatchObject({ deferLoading: "always", warnToolCount: 60 });
    const errors = expectErrors(
      "tools:\n  mcpToolBudget: { deferLoading: later, warnToolBytes: 0, deferAboveTools: -1, extra: 1 }\n",
    );
    expect(errors.map((e) => e.path).sort()).toEqual([
      "tools.mcpToolBudget.deferAboveTools",
      "tools.mcpToolBudget.deferLoading",
      "tools.mcpToolBudget.extra",
      "tools.mcpToolBudget.warnToolBytes",
    ]);
  });

  it("round-trips a user's full toolset with a custom tool", () => {
    const tools = defaultToolDefinitions().slice(0, 2);
    const text = `tools:\n  builtin: ${JSON.stringify(tools)}\n`;
    expect(parse(text).tools.builtin).toHaveLength(2);
    expect(resolveToolset(expectOk(text))).toEqual(tools);
  });
});
