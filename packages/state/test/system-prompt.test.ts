import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  AGENTS_MD_MAX_CHARS,
  buildSystemPrompt,
  DEFAULT_SYSTEM_PROMPT,
  expandSystemPrompt,
  readAgentsMd,
  type SystemPromptValues,
  toolsBlock,
} from "../src/index.js";

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), "penguin-prompt-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const values: SystemPromptValues = {
  cwd: "/work/project",
  dataDir: "/home/u/.penguin/data",
  date: "2026-11-30",
  platform: "linux",
  shell: "bash",
};

describe("the default system prompt", () => {
  it("stays short: every byte is paid on every request", () => {
    const bytes = Buffer.byteLength(DEFAULT_SYSTEM_PROMPT);
    expect(bytes).toBeGreaterThan(1000);
    expect(bytes).toBeLessThan(2500);
  });

  it("covers who the agent is, its tools and when to stop, with the environment placeholders", () => {
    expect(DEFAULT_SYSTEM_PROMPT).toMatch(/You are Penguin/);
    expect(expandSystemPrompt(DEFAULT_SYSTEM_PROMPT, values)).toMatch(/# Tools/);
    expect(DEFAULT_SYSTEM_PROMPT).toMatch(/# When to stop/);
    for (const name of ["CWD", "DATA_DIR", "DATE", "PLATFORM", "SHELL", "AGENTS_MD", "TOOLS"]) {
      expect(DEFAULT_SYSTEM_PROMPT).toContain(`{{${name}}}`);
    }
  });

  it("expands completely with the standard values and no AGENTS.md", () => {
    const prompt = expandSystemPrompt(DEFAULT_SYSTEM_PROMPT, values);
    expect(prompt).not.toMatch(/\{\{/);
    expect(prompt).toContain("- Workspace (CWD): /work/project\n");
    expect(prompt).toContain("- App data dir: /home/u/.penguin/data\n");
    expect(prompt).toContain("- Date: 2026-11-30\n");
    expect(prompt).toContain("- Platform: linux; shell: bash\n");
    expect(prompt).not.toContain("agents_md");
  });
});

describe("the # Tools section", () => {
  it("with the default toolset, names each of its tools", () => {
    const prompt = expandSystemPrompt(DEFAULT_SYSTEM_PROMPT, values);
    expect(prompt).toContain(
      [
        "# Tools",
        "- exec_command runs `bash -lc` in the workspace. A command that outlasts yield_time_ms moves to the background with a process_id; poll it, write to it or stop it (Ctrl-C) with input_command.",
        "- Use read_file, edit_file and write_file for files, and the shell for searching (rg, find) and everything else. Paths are absolute or relative to the workspace.",
        "- Give run_subagent only self-contained subtasks, with all the context in the prompt.",
        "- Long tool output is cut; the note at its end names a file holding the full text.",
        "",
        "# When to stop",
      ].join("\n"),
    );
  });

  it("names only the tools the session has", () => {
    const section = toolsBlock(["write_file", "read_file"]);
    expect(section).toBe(
      "# Tools\n- Use read_file and write_file for files. Paths are absolute or relative to the workspace.\n- Long tool output is cut; the note at its end names a file holding the full text.\n",
    );
  });

  it("says so when the session has no tools", () => {
    expect(toolsBlock([])).toMatch(/^# Tools\nThis session has no tools/);
  });
});

describe("expandSystemPrompt", () => {
  it("writes Windows paths in the model-visible spelling", () => {
    const prompt = expandSystemPrompt("{{CWD}} | {{DATA_DIR}}", {
      ...values,
      cwd: "C:\\Users\\a b\\proj",
      dataDir: "\\\\?\\C:\\Users\\a b\\.penguin\\data",
    });
    expect(prompt).toBe("C:/Users/a b/proj | C:/Users/a b/.penguin/data");
  });

  it("expands in one pass: inserted text is not expanded again and unknown placeholders stay", () => {
    const prompt = expandSystemPrompt("{{AGENTS_MD}}{{NOT_A_PLACEHOLDER}} {{lower}} {{SESSION_ID}}", {
      ...values,
      agentsMd: "Use {{CWD}} literally.",
    });
    expect(prompt).toContain("Use {{CWD}} literally.");
    expect(prompt).toContain("{{NOT_A_PLACEHOLDER}} {{lower}} {{SESSION_ID}}");
  });

  it("inserts AGENTS.md in a delimited block naming the file", () => {
    const prompt = expandSystemPrompt(DEFAULT_SYSTEM_PROMPT, {
      ...values,
      agentsMd: "Run pnpm test before committing.\n",
    });
    expect(prompt).toContain(
      "/work/project/AGENTS.md) follows between the markers. Follow it unless the user says otherwise.\n[agents_md]\nRun pnpm test before committing.\n[/agents_md]\n",
    );
  });

  it("leaves out the block for a blank AGENTS.md", () => {
    expect(expandSystemPrompt("[{{AGENTS_MD}}]", { ...values, agentsMd: "  \n" })).toBe("[]");
  });

  it("fills the optional and extra placeholders", () => {
    const prompt = expandSystemPrompt("{{AGENT_ID}} {{PROVIDER}}/{{MODEL_ID}} {{TEAM}}", {
      ...values,
      agentId: "default",
      provider: "openai",
      modelId: "gpt-5",
      extra: { TEAM: "infra" },
    });
    expect(prompt).toBe("default openai/gpt-5 infra");
  });
});

describe("AGENTS.md", () => {
  it("is read from the workspace when there is one", async () => {
    expect(await readAgentsMd(workspace)).toBeUndefined();
    await writeFile(join(workspace, "AGENTS.md"), "# Rules\nNo force pushes.\n");
    expect(await readAgentsMd(workspace)).toBe("# Rules\nNo force pushes.\n");
  });

  it("is capped with a note that points at the file", async () => {
    await writeFile(join(workspace, "AGENTS.md"), "x".repeat(AGENTS_MD_MAX_CHARS + 500));
    const text = await readAgentsMd(workspace);
    expect(text?.startsWith("x".repeat(AGENTS_MD_MAX_CHARS))).toBe(true);
    expect(text).toMatch(
      /\[AGENTS\.md truncated: showing the first 25000 of 25500 characters; read the file/,
    );
  });

  it("ends up in the prompt that buildSystemPrompt records for a session", async () => {
    await writeFile(join(workspace, "AGENTS.md"), "Prefer small commits.");
    const prompt = await buildSystemPrompt({
      cwd: workspace,
      dataDir: "/data",
      now: new Date(2026, 10, 30, 23, 59),
      platform: "linux",
    });
    expect(prompt).toContain("[agents_md]\nPrefer small commits.\n[/agents_md]");
    expect(prompt).toContain("- Date: 2026-11-30\n");
    expect(prompt).toContain("- Platform: linux; shell: bash\n");
    expect(prompt).not.toMatch(/\{\{/);
  });
});
