import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { builtinExecutionProfiles } from "@penguin/state";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Environment } from "../../src/environment/environment.js";
import { ProcessManager } from "../../src/processes/process-manager.js";
import { extendedEnvironment, runCall, type TempDirs, workspace } from "../extended/support.js";
import { type ProfileName, profileEnvironment } from "../support/execution-profiles.js";

// "File tools resolve paths the same way inside and outside the sandbox (realpath inside the
// workspace; a symlink out of it is refused in `sandbox`)." Native keeps reaching any path.

let dirs: TempDirs;
let outside: string;
beforeEach(async () => {
  dirs = await workspace();
  outside = join(dirs.root, "home");
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "host secret\n");
  symlinkSync(join(outside, "secret.txt"), join(dirs.workspaceDir, "link.txt"));
  symlinkSync(outside, join(dirs.workspaceDir, "linked-dir"));
  writeFileSync(join(dirs.workspaceDir, "inside.txt"), "inside\n");
  symlinkSync(join(dirs.workspaceDir, "inside.txt"), join(dirs.workspaceDir, "inner-link.txt"));
});
afterEach(async () => {
  await dirs.cleanup();
});

// Confinement needs no bwrap: the file tools run in Penguin's own process.
function environment(profile: ProfileName): Environment {
  const options =
    profile === "native" ? {} : { ...profileEnvironment("sandbox", dirs), processes: new ProcessManager() };
  return extendedEnvironment(dirs, { environment: options });
}

describe("file tools in the sandbox profile", () => {
  it("refuse a symlink that leads out of the workspace, saying where it leads", async () => {
    const call = await runCall(environment("sandbox"), "read_file", { file_path: "link.txt" });
    expect(call.complete.stop_reason).toBe("failed");
    expect(call.complete.output).toContain("leads (through a symlink) to");
    expect(call.complete.output).toContain("outside the workspace");
    expect(call.complete.output).not.toContain("host secret");
  });

  it("refuse an absolute path outside the workspace, for reads, writes, listings and patches", async () => {
    const env = environment("sandbox");
    const secret = join(outside, "secret.txt");
    const calls = [
      ["read_file", { file_path: secret }],
      ["write_file", { file_path: join(outside, "new.txt"), content: "x" }],
      ["list_files", { path: outside }],
      ["search_text", { pattern: "secret", path: outside }],
      ["write_file", { file_path: "linked-dir/planted.txt", content: "x" }],
      [
        "apply_patch",
        { patch: `*** Begin Patch\n*** Add File: ${join(outside, "p.txt")}\n+x\n*** End Patch` },
      ],
      ["read_image", { source: secret }],
    ] as const;
    for (const [name, args] of calls) {
      const call = await runCall(env, name, { ...args });
      expect(call.complete.stop_reason, name).toBe("failed");
      expect(call.complete.output, name).toMatch(/outside the workspace/);
    }
    expect(readFileSync(secret, "utf8")).toBe("host secret\n");
  });

  it("follow a symlink that stays inside the workspace, and write new files there", async () => {
    const env = environment("sandbox");
    const read = await runCall(env, "read_file", { file_path: "inner-link.txt" });
    expect(read.complete.stop_reason).toBe("completed");
    expect(read.complete.output).toContain("inside");
    const write = await runCall(env, "write_file", { file_path: "new/deep/file.txt", content: "ok\n" });
    expect(write.complete.stop_reason, write.complete.output).toBe("completed");
  });

  it("still read the session's archived outputs in its scratchpad", async () => {
    mkdirSync(dirs.scratchpadDir, { recursive: true });
    writeFileSync(join(dirs.scratchpadDir, "archived.txt"), "archived output\n");
    const call = await runCall(environment("sandbox"), "read_file", {
      file_path: join(dirs.scratchpadDir, "archived.txt"),
    });
    expect(call.complete.stop_reason).toBe("completed");
  });
});

describe("file tools in the native profile", () => {
  it("keep today's behaviour: a symlink out of the workspace is followed", async () => {
    const call = await runCall(environment("native"), "read_file", { file_path: "link.txt" });
    expect(call.complete.stop_reason).toBe("completed");
    expect(call.complete.output).toContain("host secret");
  });
});

describe("a sandbox session on a machine without bwrap", () => {
  it("refuses to start a command, naming the package to install", () => {
    const processes = new ProcessManager({
      baseEnv: { PATH: join(dirs.root, "empty-path"), PENGUIN_SHELL: "/bin/bash" },
      sandbox: {
        profile: builtinExecutionProfiles().sandbox!,
        workspaceDir: dirs.workspaceDir,
        dataRoot: join(dirs.root, "data"),
      },
    });
    const started = processes.start({ cmd: "echo hi", cwd: dirs.workspaceDir });
    expect(started).toEqual({
      ok: false,
      error: expect.stringMatching(/needs bubblewrap \(bwrap\).*install the bubblewrap package/),
    });
  });
});
