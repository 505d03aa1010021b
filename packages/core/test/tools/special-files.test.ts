import { execFileSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { extendedEnvironment, runCall, type TempDirs, workspace } from "../extended/support.js";

// A named pipe, a character device or a socket handed to a file tool: opening a pipe waits for
// its other end and reading a device can wait forever, on a thread that no timeout can free
// (it even keeps the process from exiting). The tools refuse them at once, without opening them
// in a way that waits. Every call here has a short timeout: a tool that waited would end as
// "timeout" instead of answering.

const SHORT_TIMEOUT_MS = 10_000;

let dirs: TempDirs;
let socketServer: Server | undefined;
beforeEach(async () => {
  dirs = await workspace();
});
afterEach(async () => {
  await new Promise<void>((resolve) => (socketServer ? socketServer.close(() => resolve()) : resolve()));
  socketServer = undefined;
  await dirs.cleanup();
});

function environment() {
  return extendedEnvironment(dirs, { edit: (d) => ({ ...d, timeoutMs: SHORT_TIMEOUT_MS }) });
}

/** A named pipe in the workspace that nobody writes to or reads from. */
function fifo(name = "pipe"): string {
  const path = join(dirs.workspaceDir, name);
  execFileSync("mkfifo", [path]);
  return path;
}

async function unixSocket(): Promise<string> {
  const path = join(dirs.workspaceDir, "s.sock");
  socketServer = createServer();
  await new Promise<void>((resolve) => socketServer?.listen(path, resolve));
  return path;
}

describe("file tools and special files", () => {
  it("read_file refuses a FIFO at once instead of waiting for a writer", async () => {
    fifo();
    const out = (await runCall(environment(), "read_file", { file_path: "pipe" })).complete;
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toMatch(/^Cannot read \S*pipe: it is a named pipe \(FIFO\), not a regular file\./);
    expect(out.output).toContain("exec_command");
  });

  it("read_file refuses a character device and a socket", async () => {
    const device = (await runCall(environment(), "read_file", { file_path: "/dev/zero" })).complete;
    expect(device.stop_reason).toBe("failed");
    expect(device.output).toContain("it is a character device, not a regular file");
    const socket = await unixSocket();
    const out = (await runCall(environment(), "read_file", { file_path: socket })).complete;
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toContain("it is a socket, not a regular file");
  });

  it("write_file refuses to write into a FIFO nobody reads, and leaves it a FIFO", async () => {
    const path = fifo();
    const out = (await runCall(environment(), "write_file", { file_path: "pipe", content: "hello" }))
      .complete;
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toMatch(/^Cannot write \S*pipe: it is a named pipe \(FIFO\)/);
    expect(statSync(path).isFIFO()).toBe(true);
  });

  it("write_file still creates and replaces regular files", async () => {
    const env = environment();
    const created = (await runCall(env, "write_file", { file_path: "new.txt", content: "one\n" })).complete;
    expect(created.stop_reason).toBe("completed");
    await writeFile(join(dirs.workspaceDir, "old.txt"), "a much longer old content\n");
    await runCall(env, "read_file", { file_path: "old.txt" });
    const replaced = (await runCall(env, "write_file", { file_path: "old.txt", content: "short\n" }))
      .complete;
    expect(replaced.stop_reason).toBe("completed");
    expect(execFileSync("cat", [join(dirs.workspaceDir, "old.txt")], { encoding: "utf8" })).toBe("short\n");
  });

  it("edit_file refuses a FIFO at once", async () => {
    fifo();
    const out = (
      await runCall(environment(), "edit_file", { file_path: "pipe", old_string: "a", new_string: "b" })
    ).complete;
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toContain("it is a named pipe (FIFO), not a regular file");
  });

  it("search_text given a FIFO as its path answers instead of waiting", async () => {
    fifo();
    const out = (await runCall(environment(), "search_text", { pattern: "x", path: "pipe" })).complete;
    expect(out.stop_reason).not.toBe("timeout");
  });

  it("read_image refuses a FIFO at once", async () => {
    fifo("picture.png");
    const out = (await runCall(environment(), "read_image", { source: "picture.png" })).complete;
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toContain("it is a named pipe (FIFO), not a regular file");
  });

  it("leaves no file operation pending after refusing a FIFO", async () => {
    fifo();
    await runCall(environment(), "read_file", { file_path: "pipe" });
    // A blocked open would stay in the list of what keeps the process alive.
    expect(process.getActiveResourcesInfo()).not.toContain("FSReqCallback");
    expect(existsSync(join(dirs.workspaceDir, "pipe"))).toBe(true);
  });
});
