import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { readToolRows, writeToolRows } from "../src/agents/tool-rows.js";

const FILE = `# Penguin agent configuration (a comment that must survive)
name: helper
tools:
  builtin:
    - name: exec_command
      description: Run a shell command.
      permission: rw
      timeoutMs: 120000
      parameters:
        type: object
        properties:
          description: { type: string } # the call description
          cmd: { type: string }
        required: [description, cmd]
    - name: read_file
      description: Read a file.
      permission: r
      call_description: false
      parameters: { type: object, properties: { file_path: { type: string } } }
`;

describe("tool rows of system_config.yaml", () => {
  it("reads each tools.builtin entry's editable fields", () => {
    const result = readToolRows(FILE);
    expect(result).toEqual({
      ok: true,
      rows: [
        {
          name: "exec_command",
          description: "Run a shell command.",
          permission: "rw",
          timeoutMs: "120000",
          maxOutputLength: "",
          callDescription: true,
          hasDescriptionArgument: true,
        },
        {
          name: "read_file",
          description: "Read a file.",
          permission: "r",
          timeoutMs: "",
          maxOutputLength: "",
          callDescription: false,
          hasDescriptionArgument: true,
        },
      ],
    });
  });

  it("writes edits into the existing entries and keeps everything else, comments included", () => {
    const result = readToolRows(FILE);
    if (!result.ok || !result.rows) throw new Error("rows expected");
    const [exec, read] = result.rows;
    const yaml = writeToolRows(FILE, [
      {
        ...exec,
        description: "Run one command.",
        timeoutMs: "",
        maxOutputLength: "8000",
        callDescription: false,
      },
      { ...read, permission: "rw", timeoutMs: "-1", callDescription: true },
    ]);
    expect(yaml).toContain("# Penguin agent configuration (a comment that must survive)");
    expect(yaml).toContain("# the call description");
    const tools = (parse(yaml) as { name: string; tools: { builtin: Record<string, unknown>[] } }).tools
      .builtin;
    expect(tools).toHaveLength(2);
    expect(tools[0]).toMatchObject({
      description: "Run one command.",
      maxOutputLength: 8000,
      call_description: false,
    });
    expect(tools[0]).not.toHaveProperty("timeoutMs");
    expect(tools[0].parameters).toEqual(parse(FILE).tools.builtin[0].parameters);
    expect(tools[1]).toMatchObject({ permission: "rw", timeoutMs: -1, call_description: true });
    expect((parse(yaml) as { name: string }).name).toBe("helper");
  });

  it("leaves an unchanged file byte for byte as it was", () => {
    const result = readToolRows(FILE);
    if (!result.ok || !result.rows) throw new Error("rows expected");
    expect(writeToolRows(FILE, result.rows)).toBe(FILE);
  });

  it("passes a number that is not one on as typed, for the server to reject with its reason", () => {
    const result = readToolRows(FILE);
    if (!result.ok || !result.rows) throw new Error("rows expected");
    const yaml = writeToolRows(FILE, [{ ...result.rows[0], timeoutMs: "soon" }, result.rows[1]]);
    expect(parse(yaml).tools.builtin[0].timeoutMs).toBe("soon");
  });

  it("never adds or removes a row, and says so when the file no longer matches the form", () => {
    const result = readToolRows(FILE);
    if (!result.ok || !result.rows) throw new Error("rows expected");
    expect(() => writeToolRows(FILE, [result.rows[0]])).toThrow(/changed since it was loaded/);
    expect(() => writeToolRows(FILE, [...result.rows, result.rows[0]])).toThrow(
      /changed since it was loaded/,
    );
  });

  it("reports a file that follows the default toolset, and files it cannot read", () => {
    expect(readToolRows("name: x\n")).toEqual({ ok: true, rows: undefined });
    expect(readToolRows("tools:\n  builtin: 3\n")).toEqual({
      ok: false,
      message: "tools.builtin is not a list",
    });
    expect(readToolRows("tools:\n  builtin:\n    - just a string\n")).toEqual({
      ok: false,
      message: "tools.builtin[0] is not a mapping",
    });
    const broken = readToolRows("tools: [\n");
    expect(broken.ok).toBe(false);
  });
});
