import { describe, expect, it } from "vitest";
import { ShellLookup } from "../../src/processes/shell-lookup.js";
import {
  findOnPath,
  interruptPlan,
  isWslLauncher,
  processGroupSpawnOptions,
  resolveShell,
  shellArgs,
  terminatePlan,
} from "../../src/tools/command/index.js";

const files = (...paths: string[]) => {
  const set = new Set(paths);
  return (file: string) => set.has(file);
};
/** Windows file names are case-insensitive. */
const windowsFiles = (...paths: string[]) => {
  const set = new Set(paths.map((file) => file.toLowerCase()));
  return (file: string) => set.has(file.toLowerCase());
};

describe("shell resolution", () => {
  it("uses PENGUIN_SHELL when set, on any platform", () => {
    for (const platform of ["linux", "darwin", "win32"] as const) {
      expect(
        resolveShell({
          platform,
          env: { PENGUIN_SHELL: " /opt/bash5/bin/bash ", PATH: "/usr/bin" },
          isExecutable: () => true,
        }),
      ).toEqual({ ok: true, shell: "/opt/bash5/bin/bash" });
    }
  });

  it("finds bash on PATH on POSIX, in PATH order", () => {
    expect(
      resolveShell({
        platform: "linux",
        env: { PATH: "/nope:/usr/local/bin:/usr/bin" },
        isExecutable: files("/usr/bin/bash", "/usr/local/bin/bash"),
      }),
    ).toEqual({ ok: true, shell: "/usr/local/bin/bash" });
  });

  it("ignores an empty PENGUIN_SHELL", () => {
    expect(
      resolveShell({
        platform: "darwin",
        env: { PENGUIN_SHELL: "  ", PATH: "/bin" },
        isExecutable: files("/bin/bash"),
      }),
    ).toEqual({ ok: true, shell: "/bin/bash" });
  });

  it("on Windows finds Git Bash through Path and PATHEXT, skipping the WSL launcher", () => {
    const result = resolveShell({
      platform: "win32",
      env: { Path: "C:\\Windows\\System32;C:\\Program Files\\Git\\bin", PATHEXT: ".COM;.EXE" },
      isExecutable: windowsFiles("C:\\Windows\\System32\\bash.exe", "C:\\Program Files\\Git\\bin\\bash.exe"),
    });
    expect(result).toEqual({ ok: true, shell: "C:\\Program Files\\Git\\bin\\bash.EXE" });
  });

  it("fails with advice when no bash is found", () => {
    expect(resolveShell({ platform: "linux", env: { PATH: "/usr/bin" }, isExecutable: () => false })).toEqual(
      {
        ok: false,
        error: "no bash found on PATH: install bash or set PENGUIN_SHELL to a bash-compatible shell",
      },
    );
    const win = resolveShell({
      platform: "win32",
      env: { Path: "C:\\Windows\\System32" },
      isExecutable: windowsFiles("C:\\Windows\\System32\\bash.exe"),
    });
    expect(win).toEqual({
      ok: false,
      error:
        "no bash found on PATH: install Git for Windows (Git Bash) or set PENGUIN_SHELL to a bash-compatible shell",
    });
  });

  it("recognises the WSL launcher whatever the spelling", () => {
    expect(isWslLauncher("C:\\Windows\\System32\\bash.exe")).toBe(true);
    expect(isWslLauncher("c:/windows/sysnative/BASH.EXE")).toBe(true);
    expect(isWslLauncher("C:\\Program Files\\Git\\usr\\bin\\bash.exe")).toBe(false);
  });

  it("findOnPath skips empty PATH entries and tries no extensions on POSIX", () => {
    const seen: string[] = [];
    findOnPath("bash", {
      platform: "linux",
      pathEnv: "::/a:",
      isExecutable: (file) => {
        seen.push(file);
        return false;
      },
    });
    expect(seen).toEqual(["/a/bash"]);
  });

  it("runs the command as a login shell: -lc", () => {
    expect(shellArgs("echo hi")).toEqual(["-lc", "echo hi"]);
  });
});

describe("signals per platform", () => {
  it("Ctrl-C is SIGINT to the process group on POSIX and a tree kill on Windows", () => {
    expect(interruptPlan("linux", 4242)).toEqual({ kind: "group-signal", pgid: 4242, signal: "SIGINT" });
    expect(interruptPlan("darwin", 7)).toEqual({ kind: "group-signal", pgid: 7, signal: "SIGINT" });
    expect(interruptPlan("win32", 4242)).toEqual({
      kind: "spawn",
      file: "taskkill",
      args: ["/pid", "4242", "/t", "/f"],
    });
  });

  it("termination is SIGTERM then SIGKILL to the group on POSIX, taskkill /t /f on Windows", () => {
    expect(terminatePlan("linux", 9)).toEqual({
      polite: { kind: "group-signal", pgid: 9, signal: "SIGTERM" },
      forced: { kind: "group-signal", pgid: 9, signal: "SIGKILL" },
    });
    const win = terminatePlan("win32", 9);
    expect(win.polite).toEqual({ kind: "spawn", file: "taskkill", args: ["/pid", "9", "/t", "/f"] });
    expect(win.forced).toEqual(win.polite);
  });

  it("makes a process group on POSIX (detached) but no console window on Windows", () => {
    expect(processGroupSpawnOptions("linux")).toEqual({ detached: true, windowsHide: true });
    expect(processGroupSpawnOptions("win32")).toEqual({ detached: false, windowsHide: true });
  });
});

describe("the shell of a manager's commands, looked up once", () => {
  /** An isExecutable over a changing set of files, counting its calls. */
  function disk(...paths: string[]) {
    const present = new Set(paths);
    const calls: string[] = [];
    return {
      present,
      calls,
      isExecutable: (file: string) => {
        calls.push(file);
        return present.has(file);
      },
    };
  }
  const PATH = "/opt/a:/opt/b:/usr/local/bin:/usr/bin";

  it("searches PATH for the first command and only checks the shell it found for the next ones", () => {
    const fs = disk("/usr/bin/bash");
    const shells = new ShellLookup("linux", fs.isExecutable);
    expect(shells.resolve({ PATH })).toEqual({ ok: true, shell: "/usr/bin/bash" });
    expect(fs.calls).toHaveLength(4);
    fs.calls.length = 0;
    expect(shells.resolve({ PATH })).toEqual({ ok: true, shell: "/usr/bin/bash" });
    expect(fs.calls).toEqual(["/usr/bin/bash"]);
  });

  it("looks again when PATH or PENGUIN_SHELL changes, or when the shell it found is gone", () => {
    const fs = disk("/usr/bin/bash", "/opt/b/bash");
    const shells = new ShellLookup("linux", fs.isExecutable);
    expect(shells.resolve({ PATH: "/usr/bin" })).toEqual({ ok: true, shell: "/usr/bin/bash" });
    expect(shells.resolve({ PATH })).toEqual({ ok: true, shell: "/opt/b/bash" });
    expect(shells.resolve({ PATH, PENGUIN_SHELL: "/bin/zsh" })).toEqual({ ok: true, shell: "/bin/zsh" });
    expect(shells.resolve({ PATH })).toEqual({ ok: true, shell: "/opt/b/bash" });
    fs.present.delete("/opt/b/bash");
    expect(shells.resolve({ PATH })).toEqual({ ok: true, shell: "/usr/bin/bash" });
    fs.present.delete("/usr/bin/bash");
    const none = shells.resolve({ PATH });
    expect(none.ok).toBe(false);
    expect(!none.ok && none.error).toMatch(/no bash found on PATH/);
  });
});
