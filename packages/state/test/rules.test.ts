import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  buildSystemPrompt,
  DEFAULT_SYSTEM_PROMPT,
  formatRules,
  RULE_FILE_MAX_CHARS,
  RULES_TOTAL_MAX_CHARS,
  readRules,
} from "../src/index.js";

// A directory's rules (`.agents/rules/*.md`): read in file-name order with per-file and total
// caps, and put into the system prompt at session start the way change_directory shows them.

let workspace: string;
let rulesDir: string;
beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), "penguin-rules-"));
  rulesDir = join(workspace, ".agents", "rules");
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

async function rule(name: string, text: string) {
  await mkdir(rulesDir, { recursive: true });
  await writeFile(join(rulesDir, name), text);
}

const prompt = (cwd: string) =>
  buildSystemPrompt({ cwd, dataDir: "/data", now: new Date(2026, 10, 30), platform: "linux" });

describe("readRules", () => {
  it("reads the .md files in file-name order, whatever order they were written in", async () => {
    await rule("b-tests.md", "Run the tests.\n");
    await rule("a-style.md", "Use tabs.\n");
    await rule("notes.txt", "not a rule");
    await mkdir(join(rulesDir, "dir.md"));
    const rules = await readRules(workspace);
    expect(rules.map((r) => [r.name, r.text])).toEqual([
      ["a-style.md", "Use tabs.\n"],
      ["b-tests.md", "Run the tests.\n"],
    ]);
  });

  it("is empty without a rules folder", async () => {
    expect(await readRules(workspace)).toEqual([]);
  });

  it("cuts a file over the per-file cap and says where the rest is", async () => {
    await rule("big.md", "x".repeat(RULE_FILE_MAX_CHARS + 10));
    const [big] = await readRules(workspace);
    expect(big.text).toHaveLength(RULE_FILE_MAX_CHARS);
    expect(big.truncated).toBe(true);
    expect(formatRules([big])).toMatch(
      /x\n\[rule truncated: read \/.*\/\.agents\/rules\/big\.md for the rest\]$/,
    );
  });

  it("stops at the total cap, and names the rules past it with a note instead of dropping them", async () => {
    await rule("1.md", "a".repeat(RULE_FILE_MAX_CHARS));
    await rule("2.md", "b".repeat(RULE_FILE_MAX_CHARS));
    await rule("3.md", "late rule");
    const rules = await readRules(workspace);
    expect(rules.reduce((n, r) => n + r.text.length, 0)).toBe(RULES_TOTAL_MAX_CHARS);
    expect(rules[2]).toMatchObject({ name: "3.md", text: "", truncated: true });
    expect(formatRules(rules)).toMatch(/## 3\.md\n\[rule truncated: read \/.*\/3\.md for the rest\]$/);
  });

  it("follows a symlinked rule, and names one that cannot be read with the reason", async () => {
    await mkdir(rulesDir, { recursive: true });
    await writeFile(join(workspace, "shared.md"), "Shared rule.\n");
    await symlink(join(workspace, "shared.md"), join(rulesDir, "linked.md"));
    await symlink(join(workspace, "missing.md"), join(rulesDir, "broken.md"));
    const rules = await readRules(workspace);
    expect(rules.map((r) => r.name)).toEqual(["broken.md", "linked.md"]);
    expect(rules[1].text).toBe("Shared rule.\n");
    expect(formatRules(rules)).toMatch(
      /^## broken\.md\n\[rule not loaded: \/.*\/broken\.md cannot be read \(it is a broken link\)\]\n\n## linked\.md\nShared rule\.$/,
    );
  });

  it("names a file without read permission (when not running as root)", async () => {
    await rule("secret.md", "hidden");
    await chmod(join(rulesDir, "secret.md"), 0o000);
    const [secret] = await readRules(workspace);
    // root reads any file, so there the text simply comes through.
    if (process.getuid?.() === 0) expect(secret.text).toBe("hidden");
    else expect(secret).toMatchObject({ text: "", unreadable: "permission denied" });
  });
});

describe("the workspace's rules in the system prompt", () => {
  it("follow AGENTS.md in a delimited block, one section per file", async () => {
    await writeFile(join(workspace, "AGENTS.md"), "Prefer small commits.\n");
    await rule("b.md", "Rule B.\n");
    await rule("a.md", "Rule A.\n");
    const text = await prompt(workspace);
    expect(text).toContain(
      `[/agents_md]\n\n# Workspace rules\nThe workspace's rules (${workspace}/.agents/rules/*.md) follow between the markers, one section per file. Follow them unless the user says otherwise.\n[rules]\n## a.md\nRule A.\n\n## b.md\nRule B.\n[/rules]\n`,
    );
    expect(text).not.toMatch(/\{\{/);
  });

  it("are the same bytes each time for the same files (prompt caching)", async () => {
    await rule("z.md", "Last.");
    await rule("m.md", "Middle.");
    expect(await prompt(workspace)).toBe(await prompt(workspace));
  });

  it("add nothing without rules: the prompt is what it was before rules were loaded", async () => {
    const without = buildSystemPrompt({
      template: DEFAULT_SYSTEM_PROMPT.replace("{{RULES}}", ""),
      cwd: workspace,
      dataDir: "/data",
      now: new Date(2026, 10, 30),
      platform: "linux",
    });
    expect(await prompt(workspace)).toBe(await without);
    // An empty rules folder is no rules either.
    await mkdir(rulesDir, { recursive: true });
    expect(await prompt(workspace)).toBe(await without);
    expect(await without).not.toContain("# Workspace rules");
  });

  it("are left out of a custom template without {{RULES}}", async () => {
    await rule("a.md", "Rule A.");
    const text = await buildSystemPrompt({ template: "Only {{CWD}}.", cwd: workspace, dataDir: "/d" });
    expect(text).toBe(`Only ${workspace}.`);
  });
});
