import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExecutionProfileSchema } from "@penguin/state/schemas";
import { afterEach, describe, expect, it } from "vitest";
import { bwrapArguments, limitedCommand } from "../../src/processes/sandbox-command.js";

// The sandbox's documented policy, as the argument vector bwrap gets: later mounts lie over
// earlier ones, so the order is the policy.

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

function placement(profile: Record<string, unknown> = {}) {
  root = mkdtempSync(join(tmpdir(), "penguin-bwrap-args-"));
  return {
    profile: ExecutionProfileSchema.parse({ kind: "sandbox", ...profile }),
    workspaceDir: join(root, "ws"),
    dataRoot: root,
  };
}

describe("bwrapArguments", () => {
  it("mounts / read-only, hides the homes and the data root, then binds the workspace over them", () => {
    const where = placement();
    const args = bwrapArguments(where, { shell: "/bin/bash", args: ["-c", "true"], cwd: where.workspaceDir });
    const at = (...words: string[]) =>
      args.findIndex((_, i) => words.every((word, j) => args[i + j] === word));
    expect(args.slice(0, 3)).toEqual(["--ro-bind", "/", "/"]);
    expect(at("--tmpfs", where.dataRoot)).toBeGreaterThan(0);
    expect(at("--tmpfs", "/tmp")).toBeGreaterThan(at("--tmpfs", where.dataRoot));
    expect(at("--bind", where.workspaceDir, where.workspaceDir)).toBeGreaterThan(at("--tmpfs", "/tmp"));
    expect(args).toEqual(
      expect.arrayContaining(["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net"]),
    );
    expect(args).toEqual(expect.arrayContaining(["--cap-drop", "ALL", "--die-with-parent"]));
    expect(args).not.toContain("--new-session");
    expect(args.slice(-4)).toEqual(["--", "/bin/bash", "-c", "true"]);
  });

  it("keeps the network and a writable / when the profile says so, and hides its hidden paths last", () => {
    const where = placement({ network: true, writable_paths: ["/"] });
    const secret = join(root, "secret.txt");
    writeFileSync(secret, "s");
    const profile = { ...where.profile, hidden_paths: [secret, root] };
    const args = bwrapArguments({ ...where, profile }, { shell: "/bin/bash", args: [], cwd: "/" });
    expect(args.slice(0, 3)).toEqual(["--bind", "/", "/"]);
    expect(args).not.toContain("--unshare-net");
    const text = args.join(" ");
    expect(text).toContain(`--ro-bind /dev/null ${secret}`);
    expect(text.lastIndexOf(`--tmpfs ${root}`)).toBeGreaterThan(text.indexOf(`--bind ${where.workspaceDir}`));
  });
});

describe("limitedCommand", () => {
  it("is the shell itself without limits, and a bash wrapper that execs it with them", () => {
    expect(limitedCommand({}, "/bin/bash", ["-c", "ls"])).toEqual(["/bin/bash", "-c", "ls"]);
    expect(
      limitedCommand({ memory_mb: 2, processes: 10, file_size_mb: 1, cpu_seconds: 5 }, "/bin/bash", [
        "-c",
        "ls",
      ]),
    ).toEqual([
      "/bin/bash",
      "-c",
      'ulimit -v 2048 && ulimit -u 10 && ulimit -f 1024 && ulimit -t 5 && exec "$@"',
      "sh",
      "/bin/bash",
      "-c",
      "ls",
    ]);
  });
});
