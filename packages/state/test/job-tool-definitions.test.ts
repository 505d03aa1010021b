import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import {
  applyCallDescription,
  DEFAULT_JOBS_BUFFER_CHARS,
  DEFAULT_JOBS_MAX_JOBS,
  defaultToolLimits,
  formatConfigError,
  JOB_TOOL_DEFINITIONS,
  PURPOSE_PROPERTY,
  parseSystemConfig,
  presetToolDefinitions,
  resolveToolLimits,
} from "../src/index.js";
import { ToolDefinitionConfigSchema } from "../src/schemas.js";

function parse(text: string) {
  const result = parseSystemConfig(text, "system_config.yaml");
  return result.ok
    ? { config: result.config, errors: [] }
    : { config: undefined, errors: result.errors.map(formatConfigError) };
}

describe("the job tools' definitions", () => {
  it("are complete, compile, and are in the extended preset only", () => {
    const ajv = new Ajv2020({ strict: false });
    for (const tool of JOB_TOOL_DEFINITIONS) {
      expect(ToolDefinitionConfigSchema.parse(tool)).toEqual(tool);
      expect(() => ajv.compile(tool.parameters)).not.toThrow();
    }
    const names = JOB_TOOL_DEFINITIONS.map((t) => t.name);
    expect(names).toEqual(["run_command", "list_jobs", "read_job_output", "wait_job", "signal_job"]);
    const extended = presetToolDefinitions("extended").map((t) => t.name);
    for (const name of names) expect(extended).toContain(name);
    expect(presetToolDefinitions("core").map((t) => t.name)).not.toContain("run_command");
  });

  it("require run_command's purpose, first, and keep it when call descriptions are off", () => {
    const run = JOB_TOOL_DEFINITIONS.find((t) => t.name === "run_command")!;
    expect(run.parameters.required).toEqual([PURPOSE_PROPERTY, "command"]);
    expect(Object.keys(run.parameters.properties ?? {})[0]).toBe(PURPOSE_PROPERTY);
    const assembled = applyCallDescription({ ...structuredClone(run), call_description: false });
    expect(assembled.parameters.required).toContain(PURPOSE_PROPERTY);
    const validate = new Ajv2020({ strict: false }).compile(run.parameters);
    expect(validate({ command: "ls" })).toBe(false);
    expect(validate({ purpose: "list", command: "ls", timeout_ms: 0 })).toBe(true);
  });
});

describe("the job tools' limits", () => {
  it("default to the documented values, one cap of 64 shared with exec_command and 1 MiB per job", () => {
    const limits = defaultToolLimits();
    expect(limits.jobs).toEqual({ maxJobs: DEFAULT_JOBS_MAX_JOBS, bufferChars: DEFAULT_JOBS_BUFFER_CHARS });
    expect(DEFAULT_JOBS_MAX_JOBS).toBe(64);
    expect(DEFAULT_JOBS_BUFFER_CHARS).toBe(1_048_576);
    expect(limits.run_command.defaultTimeoutMs).toBe(30_000);
    expect(limits.wait_job).toEqual({
      defaultTimeoutMs: 30_000,
      maxLineChars: 65_536,
      regexTimeoutMs: 10_000,
    });
    expect(limits.read_job_output).toEqual({ defaultLines: 100, maxLines: 2_000, maxLineChars: 2_000 });
    expect(limits.list_jobs).toEqual({ tailLines: 3, maxLineChars: 200 });
    expect(limits.signal_job).toEqual({ graceMs: 1_000 });
  });

  it("keep what is written, fill the rest, and reject unknown keys and bad values by path", () => {
    const { config } = parse(
      "tools:\n  limits:\n    jobs: { maxJobs: 8 }\n    list_jobs: { tailLines: 0 }\n",
    );
    const limits = resolveToolLimits(config!);
    expect(limits.jobs).toEqual({ maxJobs: 8, bufferChars: DEFAULT_JOBS_BUFFER_CHARS });
    expect(limits.list_jobs.tailLines).toBe(0);
    expect(parse("tools:\n  limits:\n    jobs: { maxJobz: 8 }\n").errors.join("\n")).toContain(
      "tools.limits.jobs",
    );
    expect(parse("tools:\n  limits:\n    wait_job: { defaultTimeoutMs: -1 }\n").errors.join("\n")).toContain(
      "tools.limits.wait_job.defaultTimeoutMs",
    );
  });
});
