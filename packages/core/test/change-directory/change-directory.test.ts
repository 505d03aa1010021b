import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { chatMessages, collect, stack, toolMessage } from "../hooks/support.js";
import { RETRY_FAST } from "../sdk/fixtures.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";

// change_directory end to end: what it loads from the target (AGENTS.md, rules, skills, hooks),
// where later relative paths and commands resolve, the rule that it is alone in its round, and a
// resumed session that goes back where it was.

const start = cleanedUpAfterEach(stack);

const EXTENDED = { tools: { preset: "extended" as const, writeGuard: false } };
const cd = (path: string, id = "cd1") => ({ id, name: "change_directory", arguments: { path } });
const exec = (cmd: string, id: string) => ({
  id,
  name: "exec_command",
  arguments: { description: "run", cmd },
});

/** `<workspace>/pkg` with an AGENTS.md, a rule, a skill, a hooks file and a data file. */
function makePackage(workspaceDir: string): string {
  const pkg = join(workspaceDir, "pkg");
  mkdirSync(join(pkg, ".agents", "rules"), { recursive: true });
  mkdirSync(join(pkg, ".agents", "skills", "build"), { recursive: true });
  writeFileSync(join(pkg, "AGENTS.md"), "Package notes: run the tests with make check.\n");
  writeFileSync(join(pkg, ".agents", "rules", "style.md"), "Use tabs in this package.\n");
  writeFileSync(
    join(pkg, ".agents", "skills", "build", "SKILL.md"),
    "---\nname: build\ndescription: Build this package.\n---\nRun make all, then make check.\n",
  );
  writeFileSync(
    join(pkg, ".agents", "hooks.yaml"),
    "before_tool:\n  - name: pkg-guard\n    command: exit 2\n",
  );
  writeFileSync(join(pkg, "data.txt"), "package data\n");
  return pkg;
}

describe("change_directory", () => {
  it("loads the target's AGENTS.md, rules and skills; then relative paths and commands resolve there", async () => {
    const env = await start(
      [
        { tool_calls: [cd("pkg")] },
        {
          tool_calls: [
            { id: "r1", name: "read_file", arguments: { file_path: "data.txt" } },
            exec("pwd", "e1"),
            { id: "w1", name: "write_file", arguments: { file_path: "out.txt", content: "written\n" } },
            { id: "s1", name: "use_skill", arguments: { name: "build" } },
          ],
        },
        { text: "done" },
      ],
      EXTENDED,
    );
    const pkg = makePackage(env.workspaceDir);
    const session = await env.session();
    await collect(session.run("Work in pkg.", { approve: allowAll }));
    await session.dispose();

    const loaded = toolMessage(env, 1, "cd1");
    expect(loaded.split("\n")[0]).toBe(`Current directory: ${pkg}`);
    expect(loaded).toContain("[agents_md]\nPackage notes: run the tests with make check.\n[/agents_md]");
    expect(loaded).toContain("## style.md\nUse tabs in this package.");
    expect(loaded).toContain("- build: Build this package.");
    // Workspace hooks are off for this agent: the file is named, and its hooks do not run.
    expect(loaded).toContain(".agents/hooks.yaml is not used");

    expect(toolMessage(env, 2, "r1")).toContain("package data");
    expect(toolMessage(env, 2, "e1")).toContain(realpathSync(pkg));
    expect(readFileSync(join(pkg, "out.txt"), "utf8")).toBe("written\n");
    expect(existsSync(join(env.workspaceDir, "out.txt"))).toBe(false);
    expect(toolMessage(env, 2, "s1")).toContain("Run make all, then make check.");
    expect(session.currentDirectory).toBe(pkg);
    // The system prompt is not rewritten (the prompt cache stays valid).
    expect(chatMessages(env.llm, 1)[0]?.content).toBe(chatMessages(env.llm, 0)[0]?.content);
  });

  it("refuses when it is not alone in its round, and nothing changes", async () => {
    const env = await start(
      [
        { tool_calls: [cd("pkg"), { id: "r1", name: "read_file", arguments: { file_path: "top.txt" } }] },
        { tool_calls: [{ id: "r2", name: "read_file", arguments: { file_path: "top.txt" } }] },
        { text: "done" },
      ],
      EXTENDED,
    );
    makePackage(env.workspaceDir);
    writeFileSync(join(env.workspaceDir, "top.txt"), "top level\n");
    const session = await env.session();
    await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    const refused = toolMessage(env, 1, "cd1");
    expect(refused).toContain("change_directory must be called alone in its tool round");
    expect(refused).toContain("this round also called read_file");
    expect(refused).toContain(`Nothing changed: the current directory is still ${env.workspaceDir}.`);
    expect(toolMessage(env, 1, "r1")).toContain("top level");
    expect(toolMessage(env, 2, "r2")).toContain("top level");
    expect(session.currentDirectory).toBe(env.workspaceDir);
  });

  it("fails on a path that is not a directory, and stays where it was", async () => {
    const env = await start(
      [{ tool_calls: [cd("missing", "c1")] }, { tool_calls: [cd("top.txt", "c2")] }, { text: "done" }],
      EXTENDED,
    );
    writeFileSync(join(env.workspaceDir, "top.txt"), "x");
    const session = await env.session();
    await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    expect(toolMessage(env, 1, "c1")).toMatch(/^Cannot enter .*missing: ENOENT\. Nothing changed/);
    expect(toolMessage(env, 2, "c2")).toContain("top.txt is not a directory. Nothing changed");
    expect(session.currentDirectory).toBe(env.workspaceDir);
  });

  it("with workspace hooks on, the target's hooks run from then on", async () => {
    const env = await start(
      [{ tool_calls: [cd("pkg")] }, { tool_calls: [exec("touch made.txt", "e1")] }, { text: "done" }],
      { ...EXTENDED, hooks: { allow_workspace_hooks: true } },
    );
    const pkg = makePackage(env.workspaceDir);
    const session = await env.session();
    await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    expect(toolMessage(env, 1, "cd1")).toContain(
      "These hooks now run around your tool calls: workspace:pkg-guard",
    );
    expect(toolMessage(env, 2, "e1")).toContain("denied by hook workspace:pkg-guard");
    expect(existsSync(join(pkg, "made.txt"))).toBe(false);
  });

  it("keeps the workspace the protected root: remove_path still refuses it from a subdirectory", async () => {
    const env = await start(
      [
        { tool_calls: [cd("pkg")] },
        { tool_calls: [{ id: "rm1", name: "remove_path", arguments: { path: "..", recursive: true } }] },
        { text: "done" },
      ],
      EXTENDED,
    );
    makePackage(env.workspaceDir);
    const session = await env.session();
    await collect(session.run("Go.", { approve: allowAll }));
    await session.dispose();
    expect(toolMessage(env, 2, "rm1")).toMatch(/workspace/i);
    expect(existsSync(join(env.workspaceDir, "pkg", "data.txt"))).toBe(true);
  });

  it("is where a resumed session goes back to", async () => {
    const env = await start(
      [{ tool_calls: [cd("pkg")] }, { text: "moved" }, { tool_calls: [exec("pwd", "e1")] }, { text: "done" }],
      EXTENDED,
    );
    const pkg = makePackage(env.workspaceDir);
    const first = await env.session();
    await collect(first.run("Move.", { approve: allowAll }));
    await first.dispose();
    const resumed = await env.agent.resumeSession(first.id, { retry: RETRY_FAST });
    expect(resumed.currentDirectory).toBe(pkg);
    await collect(resumed.run("Where are you?", { approve: allowAll }));
    await resumed.dispose();
    expect(toolMessage(env, 3, "e1")).toContain(realpathSync(pkg));
  });
});
