import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { PartialToolCallOutputPayload } from "@penguin/protocol";
import { DEFAULT_TOOL_DEFINITIONS } from "@penguin/state";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProcessManager } from "../../src/processes/process-manager.js";
import { createReadFileTool } from "../../src/tools/read-file/read-file.js";
import { extendedEnvironment, runCall, type TempDirs, workspace } from "../extended/support.js";

// read_file given a directory says how to list it, naming a tool the session actually offers.

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await workspace();
  await mkdir(join(dirs.workspaceDir, "src"));
});
afterEach(async () => {
  await dirs.cleanup();
});

const readDir = async (allowedTools?: string[]) => {
  const env = extendedEnvironment(dirs, allowedTools ? { environment: { allowedTools } } : {});
  return (await runCall(env, "read_file", { file_path: "src" })).complete;
};

describe("read_file on a directory", () => {
  it("suggests list_files when the session offers it", async () => {
    const out = await readDir();
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toBe(
      `${join(dirs.workspaceDir, "src")} is a directory, not a file. List it with list_files.`,
    );
  });

  it("suggests exec_command when list_files is not offered", async () => {
    const out = await readDir(["read_file", "exec_command"]);
    expect(out.output).toBe(
      `${join(dirs.workspaceDir, "src")} is a directory, not a file. List it with exec_command (e.g. ls -la).`,
    );
  });

  it("names both ways when it runs outside an Environment that could tell", async () => {
    const definition = DEFAULT_TOOL_DEFINITIONS.find((d) => d.name === "read_file")!;
    const tool = createReadFileTool(definition);
    const texts: string[] = [];
    const run = tool.execute(
      { file_path: "src" },
      {
        workspaceDir: dirs.workspaceDir,
        toolCallId: "t1",
        sessionId: "s1",
        scratchpadDir: dirs.scratchpadDir,
        processes: new ProcessManager(),
        modelHasVision: false,
      },
    );
    for await (const message of run) texts.push((message.payload as PartialToolCallOutputPayload).output);
    expect(texts.join("")).toContain("is a directory, not a file. List it with list_files, or ls.");
  });
});
