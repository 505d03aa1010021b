import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  adoptDefaultTools,
  applyRichRead,
  createAgent,
  DEFAULT_TOOL_DEFINITIONS,
  defaultToolLimits,
  EXTENDED_TOOL_DEFINITIONS,
  formatConfigError,
  loadAgent,
  missingDefaultTools,
  parseSystemConfig,
  presetToolDefinitions,
  READ_FILE_RICH_NOTE,
  readFileRichEnabled,
  renderDefaultsYaml,
  resolveToolLimits,
  resolveToolset,
  type SystemConfig,
  syncAgentTools,
  systemConfigFile,
} from "../src/index.js";
import { ToolDefinitionConfigSchema } from "../src/schemas.js";

function config(text: string): SystemConfig {
  const result = parseSystemConfig(text, "system_config.yaml");
  if (!result.ok) throw new Error(result.errors.map(formatConfigError).join("\n"));
  return result.config;
}

function errors(text: string): string[] {
  const result = parseSystemConfig(text, "system_config.yaml");
  return result.ok ? [] : result.errors.map(formatConfigError);
}

const CORE = presetToolDefinitions("core").map((t) => t.name);
const EXTENDED = [
  "list_files",
  "search_text",
  "apply_patch",
  "move_path",
  "make_directory",
  "remove_path",
  "run_command",
  "list_jobs",
  "read_job_output",
  "wait_job",
  "signal_job",
  "web_fetch",
  "use_skill",
  "change_directory",
  "send_message",
  "wait_messages",
  "ask",
  "launch_agent",
  "stop_agent",
  "read_metrics",
  "search_executions",
  "read_execution",
  "resume_execution",
  "resolve_execution_activity",
];

describe("extended tool definitions", () => {
  it("are complete definitions whose schemas compile (draft 2020-12)", () => {
    expect(EXTENDED_TOOL_DEFINITIONS.map((t) => t.name)).toEqual(EXTENDED);
    const ajv = new Ajv2020({ strict: false });
    for (const tool of EXTENDED_TOOL_DEFINITIONS) {
      expect(ToolDefinitionConfigSchema.parse(tool)).toEqual(tool);
      expect(() => ajv.compile(tool.parameters)).not.toThrow();
    }
    const permissions = Object.fromEntries(EXTENDED_TOOL_DEFINITIONS.map((t) => [t.name, t.permission]));
    expect(permissions).toMatchObject({
      list_files: "r",
      search_text: "r",
      web_fetch: "r",
      remove_path: "rw",
      // Sending a message changes no file.
      send_message: "r",
      wait_messages: "r",
      // Launching runs an agent that may write; stopping only ends what agents started.
      launch_agent: "rw",
      stop_agent: "r",
      read_metrics: "r",
      // Reading retained work changes nothing; resuming relaunches an agent that may write.
      search_executions: "r",
      read_execution: "r",
      resume_execution: "rw",
      // It records a decision the session goes on from.
      resolve_execution_activity: "rw",
    });
  });

  it("are frozen, and presetToolDefinitions hands out copies", () => {
    const copy = presetToolDefinitions("extended");
    copy[0].description = "changed";
    expect(presetToolDefinitions("extended")[0].description).not.toBe("changed");
    expect(Object.isFrozen(EXTENDED_TOOL_DEFINITIONS[0].parameters)).toBe(true);
  });
});

describe("tools.preset", () => {
  it("extended selects the nine core tools plus the extended ones when tools.builtin is omitted", () => {
    expect(resolveToolset(config("tools:\n  preset: extended\n")).map((t) => t.name)).toEqual([
      ...CORE,
      ...EXTENDED,
    ]);
    expect(resolveToolset(config("tools:\n  preset: core\n")).map((t) => t.name)).toEqual(CORE);
    expect(resolveToolset(config("")).map((t) => t.name)).toEqual(CORE);
  });

  it("never overrides a written tools.builtin (it still replaces everything)", () => {
    const text = `tools:\n  preset: extended\n  builtin: ${JSON.stringify([EXTENDED_TOOL_DEFINITIONS[0]])}\n`;
    expect(resolveToolset(config(text)).map((t) => t.name)).toEqual(["list_files"]);
  });

  it("rejects an unknown preset and unknown keys with the field named", () => {
    expect(errors("tools:\n  preset: everything\n").join("\n")).toMatch(/tools\.preset/);
    expect(errors("tools:\n  writeGaurd: true\n").join("\n")).toMatch(/writeGaurd/);
    expect(errors("tools:\n  limits:\n    list_files: { maxEntires: 3 }\n").join("\n")).toMatch(/maxEntires/);
    expect(errors("tools:\n  limits:\n    web_fetch: { maxBytes: 0 }\n").join("\n")).toMatch(
      /tools\.limits\.web_fetch\.maxBytes/,
    );
  });
});

describe("tools.writeGuard", () => {
  const writeFileOf = (text: string) => resolveToolset(config(text)).find((t) => t.name === "write_file");

  it("is off by default: the core definitions stay exactly as specified", () => {
    expect(resolveToolset(config(""))).toEqual(presetToolDefinitions("core"));
  });

  it("is on with the extended preset: expected_sha256 is offered and the rule is described", () => {
    const tools = resolveToolset(config("tools:\n  preset: extended\n"));
    const write = tools.find((t) => t.name === "write_file")!;
    const remove = tools.find((t) => t.name === "remove_path")!;
    expect(write.parameters.properties?.expected_sha256).toMatchObject({ type: "string" });
    expect(remove.parameters.properties?.expected_sha256).toMatchObject({ type: "string" });
    // Not required: a new file needs no hash.
    expect(write.parameters.required).toEqual(["file_path", "content"]);
    expect(write.description).toContain("expected_sha256");
    expect(tools.find((t) => t.name === "read_file")!.description).toContain("sha256");
  });

  it("follows an explicit setting over the preset, either way", () => {
    expect(writeFileOf("tools:\n  preset: extended\n  writeGuard: false\n")).toEqual(
      DEFAULT_TOOL_DEFINITIONS.find((t) => t.name === "write_file"),
    );
    expect(writeFileOf("tools:\n  writeGuard: true\n")?.parameters.properties?.expected_sha256).toBeDefined();
  });
});

describe("tools.readFileRich", () => {
  const readFileOf = (text: string) => resolveToolset(config(text)).find((t) => t.name === "read_file")!;
  const coreReadFile = DEFAULT_TOOL_DEFINITIONS.find((t) => t.name === "read_file")!;

  it("is off by default: read_file keeps the core description (binary refused)", () => {
    expect(readFileRichEnabled({})).toBe(false);
    expect(readFileOf("")).toEqual(coreReadFile);
  });

  it("is on with the extended preset: read_file tells the model about PDFs and images", () => {
    expect(readFileRichEnabled({ preset: "extended" })).toBe(true);
    const description = readFileOf("tools:\n  preset: extended\n").description;
    expect(description).toContain(READ_FILE_RICH_NOTE.trim());
    expect(description).toMatch(/PDF.*page N of M.*image/);
  });

  it("follows an explicit setting over the preset, either way", () => {
    expect(readFileOf("tools:\n  preset: extended\n  readFileRich: false\n  writeGuard: false\n")).toEqual(
      coreReadFile,
    );
    expect(readFileOf("tools:\n  readFileRich: true\n").description).toContain(READ_FILE_RICH_NOTE.trim());
    expect(errors("tools:\n  readFileRich: yes please\n").join("\n")).toMatch(/tools\.readFileRich/);
  });

  it("adds its note once, whatever else the definition says", () => {
    const once = applyRichRead(coreReadFile);
    expect(applyRichRead(once).description).toBe(once.description);
    const edit = DEFAULT_TOOL_DEFINITIONS.find((t) => t.name === "edit_file")!;
    expect(applyRichRead(edit)).toEqual(edit);
  });

  it("has PDF caps under tools.limits.read_file with documented defaults", () => {
    expect(defaultToolLimits().read_file).toEqual({ pdfMaxBytes: 20 * 1024 * 1024, pdfMaxPages: 300 });
    const limits = resolveToolLimits(config("tools:\n  limits:\n    read_file: { pdfMaxPages: 2 }\n"));
    expect(limits.read_file).toEqual({ pdfMaxBytes: 20 * 1024 * 1024, pdfMaxPages: 2 });
    expect(errors("tools:\n  limits:\n    read_file: { pdfMaxPages: 0 }\n").join("\n")).toMatch(
      /tools\.limits\.read_file\.pdfMaxPages/,
    );
  });
});

describe("tools.limits", () => {
  it("fills every key with its documented default, and keeps what is written", () => {
    expect(resolveToolLimits(config(""))).toEqual(defaultToolLimits());
    const limits = resolveToolLimits(config("tools:\n  limits:\n    list_files: { maxEntries: 5 }\n"));
    expect(limits.list_files).toEqual({ maxEntries: 5, maxDepth: defaultToolLimits().list_files.maxDepth });
    expect(limits.search_text).toEqual(defaultToolLimits().search_text);
  });

  it("are written out by renderDefaultsYaml, which parses back", () => {
    const parsed = config(renderDefaultsYaml());
    expect(parsed.tools.preset).toBe("core");
    expect(parsed.tools.limits).toEqual(defaultToolLimits());
    expect(parsed.tools.builtin).toEqual(presetToolDefinitions("core"));
  });
});

describe("adopting the preset's tools", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "penguin-preset-"));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("missingDefaultTools and adoptDefaultTools honour the preset", () => {
    const core = presetToolDefinitions("core");
    expect(missingDefaultTools(core)).toEqual([]);
    expect(missingDefaultTools(core, "extended").map((t) => t.name)).toEqual(EXTENDED);
    expect(adoptDefaultTools(core, "extended").map((t) => t.name)).toEqual([...CORE, ...EXTENDED]);
  });

  it("createAgent writes the preset's full list", async () => {
    const created = await createAgent(root, "ext", { tools: { preset: "extended" } });
    expect(created.ok).toBe(true);
    const loaded = await loadAgent(root, "ext");
    if (!loaded.ok) throw new Error("expected the agent to load");
    expect(loaded.agent.config.tools.builtin?.map((t) => t.name)).toEqual([...CORE, ...EXTENDED]);
  });

  it("syncAgentTools adopts the entries of the agent's preset", async () => {
    const file = systemConfigFile(root, "old");
    await mkdir(dirname(file), { recursive: true });
    await writeFile(
      file,
      `tools:\n  preset: extended\n  builtin: ${JSON.stringify(presetToolDefinitions("core"))}\n`,
    );
    expect(await syncAgentTools(root, "old")).toEqual({ ok: true, added: EXTENDED, file });
    const loaded = await loadAgent(root, "old");
    if (!loaded.ok) throw new Error("expected the synced file to load");
    expect(loaded.agent.config.tools.builtin?.map((t) => t.name)).toEqual([...CORE, ...EXTENDED]);
    expect(await syncAgentTools(root, "old")).toEqual({ ok: true, added: [], file });
  });
});
