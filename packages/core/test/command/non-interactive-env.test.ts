import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NON_INTERACTIVE_ENV, nonInteractiveEnv, ProcessManager } from "../../src/tools/command/index.js";
import { context, execTool, runCall, tempWorkspace } from "./helpers.js";

describe("nonInteractiveEnv", () => {
  it("sets pagers, editors, prompts and colours to non-interactive values", () => {
    const env = nonInteractiveEnv({ PATH: "/bin" });
    expect(env).toMatchObject({
      PATH: "/bin",
      PAGER: "cat",
      GIT_PAGER: "cat",
      MANPAGER: "cat",
      EDITOR: "true",
      VISUAL: "true",
      GIT_EDITOR: "true",
      GIT_TERMINAL_PROMPT: "0",
      DEBIAN_FRONTEND: "noninteractive",
      PIP_NO_INPUT: "1",
      npm_config_yes: "true",
      TERM: "dumb",
      NO_COLOR: "1",
      CLICOLOR: "0",
      FORCE_COLOR: "0",
    });
    expect(env.CI).toBeUndefined();
  });

  it("overrides inherited interactive settings, drops undefined values, and lets explicit extras win", () => {
    const env = nonInteractiveEnv(
      { PAGER: "less", FORCE_COLOR: "3", UNSET: undefined },
      { EDITOR: "nano", TOKEN: "x" },
    );
    expect(env.PAGER).toBe("cat");
    expect(env.FORCE_COLOR).toBe("0");
    expect("UNSET" in env).toBe(false);
    expect(env.EDITOR).toBe("nano");
    expect(env.TOKEN).toBe("x");
  });
});

describe("commands run non-interactively", () => {
  let processes: ProcessManager;
  let workspace: { dir: string; cleanup: () => void };

  beforeEach(() => {
    workspace = tempWorkspace();
    // An inherited PAGER/EDITOR a user might have: the non-interactive values must win.
    processes = new ProcessManager({
      baseEnv: {
        ...process.env,
        PAGER: "less",
        EDITOR: "vi",
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@example.com",
      },
      env: { GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" },
    });
  });

  afterEach(async () => {
    await processes.disposeAll();
    workspace.cleanup();
  });

  const run = (cmd: string) =>
    runCall(execTool(), { description: "t", cmd, yield_time_ms: 20_000 }, context(processes, workspace.dir));

  it("sees the non-interactive environment", async () => {
    const names = Object.keys(NON_INTERACTIVE_ENV);
    const result = await run(names.map((name) => `echo "${name}=$${name}"`).join("; "));
    expect(result.output).toBe(names.map((name) => `${name}=${NON_INTERACTIVE_ENV[name]}\n`).join(""));
  });

  it("pagers print instead of waiting for a key", async () => {
    const result = await run("printf 'a\\nb\\n' | $PAGER; printf 'c\\n' | less; printf 'd\\n' | $MANPAGER");
    expect(result.output).toBe("a\nb\nc\nd\n");
    expect(result.result.note).toBe("[exit code: 0]");
  });

  it("git neither pages nor opens an editor", async () => {
    const result = await run(
      [
        "git init -q repo && cd repo",
        "echo x > f && git add f && git commit -qm first",
        "git log --format=%s",
        "echo y >> f && git add f",
        "git commit; echo commit-exit=$?",
      ].join(" && "),
    );
    expect(result.output).toContain("first\n");
    expect(result.output).toContain("Aborting commit due to empty commit message");
    expect(result.output).toContain("commit-exit=1");
    expect(result.result.note).toBe("[exit code: 0]");
  });

  it("a program that opens the terminal fails at once: the command has no controlling terminal", async () => {
    const result = await run("cat /dev/tty");
    expect(result.output).toMatch(/\/dev\/tty: No such device or address/);
    expect(result.result.note).toBe("[exit code: 1]");
  });
});
