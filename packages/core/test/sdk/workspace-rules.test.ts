import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RULE_FILE_MAX_CHARS } from "@penguin/state";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { chatMessages, collect, type Stack, stack, toolMessage, traceRecords } from "../hooks/support.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { RETRY_FAST } from "./fixtures.js";

// The workspace's rules (`.agents/rules/*.md`) reach the model from the first request of a
// session, in the system prompt beside AGENTS.md, not only after a change_directory.

const start = cleanedUpAfterEach(stack);

function writeRule(workspaceDir: string, name: string, text: string) {
  const dir = join(workspaceDir, ".agents", "rules");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), text);
}

/** The system message of the model request `n`. */
const systemOf = (env: Stack, n: number) => String(chatMessages(env.llm, n)[0]?.content ?? "");

/** The `[rules]` block's contents, or undefined. */
const rulesIn = (text: string) => /\n\[rules\]\n([\s\S]*?)\n\[\/rules\]\n/.exec(text)?.[1];

describe("the workspace's rules at session start", () => {
  it("are in the first request's system prompt, in file-name order, after AGENTS.md", async () => {
    const env = await start([{ text: "done" }]);
    writeFileSync(join(env.workspaceDir, "AGENTS.md"), "Workspace notes.\n");
    writeRule(env.workspaceDir, "testing.md", "Run make check before you finish.\n");
    writeRule(env.workspaceDir, "style.md", "Use tabs.\n");
    const session = await env.session();
    await collect(session.run("Hi.", { approve: allowAll }));
    await session.dispose();

    const [first] = chatMessages(env.llm, 0);
    expect(first.role).toBe("system");
    const system = systemOf(env, 0);
    expect(rulesIn(system)).toBe(
      "## style.md\nUse tabs.\n\n## testing.md\nRun make check before you finish.",
    );
    expect(system.indexOf("[/agents_md]")).toBeLessThan(system.indexOf("# Workspace rules"));
    expect(system).toContain(`The workspace's rules (${env.workspaceDir}/.agents/rules/*.md)`);
    // What the trace recorded is what was sent.
    const [meta] = traceRecords(session.tracePath);
    expect(meta.type === "session_meta" && meta.payload.system_prompt).toBe(system);
  });

  it("add nothing without a rules folder: no block, and no placeholder left behind", async () => {
    const env = await start([{ text: "done" }]);
    writeFileSync(join(env.workspaceDir, "AGENTS.md"), "Workspace notes.\n");
    const session = await env.session();
    await collect(session.run("Hi.", { approve: allowAll }));
    await session.dispose();
    const system = systemOf(env, 0);
    expect(system).not.toContain("# Workspace rules");
    expect(system).not.toContain("[rules]");
    expect(system).not.toMatch(/\{\{/);
    // The AGENTS.md block runs straight into what follows it, as it did before rules were loaded.
    expect(system.endsWith("[agents_md]\nWorkspace notes.\n[/agents_md]\n")).toBe(true);
  });

  it("treat an oversized and an unreadable rule exactly as change_directory does", async () => {
    const env = await start(
      [{ tool_calls: [{ id: "cd1", name: "change_directory", arguments: { path: "." } }] }, { text: "done" }],
      { tools: { preset: "extended" } },
    );
    writeRule(env.workspaceDir, "big.md", "y".repeat(RULE_FILE_MAX_CHARS + 100));
    writeRule(env.workspaceDir, "ok.md", "Small rule.\n");
    symlinkSync(join(env.workspaceDir, "gone.md"), join(env.workspaceDir, ".agents", "rules", "broken.md"));
    const session = await env.session();
    await collect(session.run("Look at the rules.", { approve: allowAll }));
    await session.dispose();

    const inPrompt = rulesIn(systemOf(env, 0)) ?? "";
    expect(inPrompt).toContain(
      `## big.md\n${"y".repeat(RULE_FILE_MAX_CHARS)}\n[rule truncated: read ${env.workspaceDir}/.agents/rules/big.md for the rest]`,
    );
    expect(inPrompt).toContain(
      `## broken.md\n[rule not loaded: ${env.workspaceDir}/.agents/rules/broken.md cannot be read (it is a broken link)]`,
    );
    expect(inPrompt).toContain("## ok.md\nSmall rule.");
    // change_directory into the same folder shows the same text under its own heading.
    const output = toolMessage(env, 1, "cd1");
    expect(output).toContain(`# Rules (.agents/rules)\n${inPrompt}`);
  });

  it("of a resumed session stay as recorded, even when the files changed since", async () => {
    const env = await start([{ text: "first" }, { text: "second" }]);
    writeRule(env.workspaceDir, "a.md", "Original rule.\n");
    const first = await env.session();
    await collect(first.run("One.", { approve: allowAll }));
    await first.dispose();

    writeRule(env.workspaceDir, "a.md", "Edited rule.\n");
    writeRule(env.workspaceDir, "b.md", "New rule.\n");
    const resumed = await env.agent.resumeSession(first.id, { retry: RETRY_FAST });
    await collect(resumed.run("Two.", { approve: allowAll }));
    await resumed.dispose();

    expect(systemOf(env, 1)).toBe(systemOf(env, 0));
    expect(rulesIn(systemOf(env, 1))).toBe("## a.md\nOriginal rule.");
  });
});
