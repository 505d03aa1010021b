import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LoginEnvironmentMode } from "@penguin/state";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LOGIN_ENVIRONMENT_FILE } from "../../src/processes/login-environment.js";
import { ProcessManager } from "../../src/tools/command/index.js";
import { runToEnd, tempWorkspace } from "./helpers.js";

// "Capture the login environment once per session … and run each command with `bash -c` sourcing
// it." Each test gives the shell a HOME of its own whose .bash_profile counts how often it is
// sourced (a line per run in `sourced.log`): the count, not a clock, shows what each command costs.

let workspace: { dir: string; cleanup: () => void };
let managers: ProcessManager[] = [];

beforeEach(() => {
  workspace = tempWorkspace();
});
afterEach(async () => {
  await Promise.all(managers.map((m) => m.disposeAll()));
  managers = [];
  workspace.cleanup();
});

const home = () => join(workspace.dir, "home");
const sourcedCount = () =>
  readFileSync(join(home(), "sourced.log"), "utf8").split("\n").filter(Boolean).length;

/** A HOME whose login profile logs each run, then does `body`. */
function profile(body: string): void {
  mkdirSync(home(), { recursive: true });
  writeFileSync(join(home(), ".bash_profile"), `echo run >> "$HOME/sourced.log"\n${body}\n`);
}

const STANDARD = ["export FROM_PROFILE=yes", 'greet() { echo "hello $1"; }', "export PAGER=less"].join("\n");

function manager(mode: LoginEnvironmentMode, dir = join(workspace.dir, "scratch")): ProcessManager {
  const processes = new ProcessManager({
    baseEnv: { PATH: process.env.PATH, HOME: home() },
    loginEnvironment: { mode, cwd: workspace.dir, dir },
  });
  managers.push(processes);
  return processes;
}

const run = (processes: ProcessManager, cmd: string) => runToEnd(processes, cmd, workspace.dir);

describe("the login environment, captured once per session", () => {
  it("sources a slow profile once: later commands have its variables and functions without running it", async () => {
    profile(`sleep 0.3\n${STANDARD}`);
    const processes = manager("once");
    await processes.loginEnvironmentSettled();
    expect(sourcedCount()).toBe(1);
    expect(await run(processes, 'greet world; echo "$FROM_PROFILE"')).toBe("hello world\nyes");
    expect(await run(processes, "true")).toBe("");
    expect(sourcedCount()).toBe(1);
    // The captured file is private, in the scratchpad.
    const file = join(workspace.dir, "scratch", LOGIN_ENVIRONMENT_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("parallel commands never contend on a profile that takes a lock", async () => {
    profile(
      `until mkdir "$HOME/lock" 2>/dev/null; do sleep 0.05; done\nsleep 0.2\nrmdir "$HOME/lock"\n${STANDARD}`,
    );
    const processes = manager("once");
    await processes.loginEnvironmentSettled();
    const outputs = await Promise.all(
      Array.from({ length: 4 }, (_, i) => run(processes, `echo "$FROM_PROFILE-${i}"`)),
    );
    expect(outputs).toEqual(["yes-0", "yes-1", "yes-2", "yes-3"]);
    expect(sourcedCount()).toBe(1);
  });

  it("keeps Penguin's non-interactive settings, and a nested shell sees the value its command gave it", async () => {
    profile(STANDARD);
    const processes = manager("once");
    await processes.loginEnvironmentSettled();
    expect(await run(processes, 'echo "$PAGER"')).toBe("cat");
    expect(await run(processes, "FROM_PROFILE=override bash -c 'echo $FROM_PROFILE'")).toBe("override");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
    expect(await run(processes, 'echo "${BASH_ENV:-unset}"')).toBe("unset");
  });

  it("before the capture is ready, and when it fails, commands run as login shells (one warning)", async () => {
    profile(STANDARD);
    // The scratchpad cannot be made (a file is in the way): the capture fails.
    writeFileSync(join(workspace.dir, "blocker"), "");
    const processes = manager("once", join(workspace.dir, "blocker", "scratch"));
    await processes.loginEnvironmentSettled();
    const warnings = processes.takeWarnings();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("the login environment could not be captured");
    expect(processes.takeWarnings()).toEqual([]);
    expect(await run(processes, 'greet a; echo "$FROM_PROFILE"')).toBe("hello a\nyes");
    // The capture failed before its shell started: the one run is the command's own login shell.
    expect(sourcedCount()).toBe(1);
  });

  it("always sources the profile for every command; none never does", async () => {
    profile(STANDARD);
    const always = manager("always");
    expect(await run(always, 'echo "$FROM_PROFILE"')).toBe("yes");
    expect(await run(always, 'echo "$FROM_PROFILE"')).toBe("yes");
    expect(sourcedCount()).toBe(2);
    const none = manager("none");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
    expect(await run(none, 'echo "${FROM_PROFILE:-none}"')).toBe("none");
    expect(sourcedCount()).toBe(2);
  });

  it("refresh captures again after the profile changed", async () => {
    profile(STANDARD);
    const processes = manager("refresh");
    await processes.loginEnvironmentSettled();
    expect(await run(processes, 'echo "$FROM_PROFILE"')).toBe("yes");
    expect(sourcedCount()).toBe(1);
    // mtime resolution: make the edit visibly later.
    await new Promise((resolve) => setTimeout(resolve, 20));
    profile("export FROM_PROFILE=edited");
    // The first command after the edit is a login shell (it reads the new profile) and starts a capture.
    expect(await run(processes, 'echo "$FROM_PROFILE"')).toBe("edited");
    await processes.loginEnvironmentSettled();
    expect(await run(processes, 'echo "$FROM_PROFILE"')).toBe("edited");
    // The first capture, the login command after the edit and the new capture: the last command ran none.
    expect(sourcedCount()).toBe(3);
  });
});
