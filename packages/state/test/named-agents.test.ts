import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  DEFAULT_SYSTEM_PROMPT,
  discoverNamedAgents,
  expandSystemPrompt,
  MAX_NAMED_AGENT_FILES,
  NAMED_AGENT_FILE_MAX_BYTES,
  namedAgentsBlock,
  PROMPT_NAMED_AGENT_DESCRIPTION_MAX_CHARS,
  PROMPT_NAMED_AGENTS_MAX,
  workspaceNamedAgentsDir,
} from "../src/index.js";

// Named agents: `.agents/agents/<name>.md` with front matter `name` (= the file name),
// `description` and optional `allowed-tools`; the body is the instructions. A file that cannot be
// used is reported in `problems` and left out, never thrown.

let workspace: string;
let dir: string;
beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), "penguin-named-agents-"));
  dir = workspaceNamedAgentsDir(workspace);
  await mkdir(dir, { recursive: true });
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const agentFile = (name: string, extra = "") =>
  `---\nname: ${name}\ndescription: Reviews ${name} changes.\n${extra}---\nYou review code.\n`;

describe("discoverNamedAgents", () => {
  it("reads each <name>.md in name order with its description, instructions and allowed-tools", async () => {
    await writeFile(
      join(dir, "reviewer.md"),
      agentFile("reviewer", "allowed-tools: read_file, exec_command\n"),
    );
    await writeFile(
      join(dir, "docs-writer.md"),
      agentFile("docs-writer", "allowed-tools:\n  - write_file\n"),
    );
    await writeFile(join(dir, "notes.txt"), "not an agent");

    const found = await discoverNamedAgents(dir, "workspace");
    expect(found.problems).toEqual([]);
    expect(found.agents).toEqual([
      {
        name: "docs-writer",
        description: "Reviews docs-writer changes.",
        instructions: "You review code.",
        allowedTools: ["write_file"],
        file: join(dir, "docs-writer.md"),
        source: "workspace",
      },
      {
        name: "reviewer",
        description: "Reviews reviewer changes.",
        instructions: "You review code.",
        allowedTools: ["read_file", "exec_command"],
        file: join(dir, "reviewer.md"),
        source: "workspace",
      },
    ]);
  });

  it("has none for a missing folder, without a problem", async () => {
    const found = await discoverNamedAgents(join(workspace, "nowhere"), "agent");
    expect(found).toEqual({ agents: [], problems: [] });
  });

  it.each([
    ["bad YAML", "---\nname: [oops\ndescription: x\n---\nBody\n", /not valid YAML/],
    ["a missing description", "---\nname: broken\n---\nBody\n", /description is missing/],
    ["a name that is not the file name", agentFile("other"), /name is "other" but the file is broken\.md/],
    ["no front matter", "Just text\n", /no front matter/],
    ["an unclosed front matter", "---\nname: broken\ndescription: x\n", /unclosed front matter/],
    ["a bad allowed-tools", agentFile("broken", "allowed-tools: 3\n"), /allowed-tools must be a list/],
    ["no instructions", "---\nname: broken\ndescription: x\n---\n\n", /no instructions/],
  ])("skips a file with %s and says why, keeping the others", async (_, text, why) => {
    await writeFile(join(dir, "broken.md"), text);
    await writeFile(join(dir, "good.md"), agentFile("good"));
    const found = await discoverNamedAgents(dir, "workspace");
    expect(found.agents.map((agent) => agent.name)).toEqual(["good"]);
    expect(found.problems).toHaveLength(1);
    expect(found.problems[0]?.file).toBe(join(dir, "broken.md"));
    expect(found.problems[0]?.message).toMatch(why);
  });

  it("skips a file above the size cap", async () => {
    await writeFile(join(dir, "huge.md"), agentFile("huge") + "x".repeat(NAMED_AGENT_FILE_MAX_BYTES));
    const found = await discoverNamedAgents(dir, "workspace");
    expect(found.agents).toEqual([]);
    expect(found.problems[0]?.message).toMatch(/at most 131072/);
  });

  it(`reads at most ${MAX_NAMED_AGENT_FILES} files and says which were left out`, async () => {
    for (let i = 0; i <= MAX_NAMED_AGENT_FILES; i++) {
      const name = `a${String(i).padStart(3, "0")}`;
      await writeFile(join(dir, `${name}.md`), agentFile(name));
    }
    const found = await discoverNamedAgents(dir, "workspace");
    expect(found.agents).toHaveLength(MAX_NAMED_AGENT_FILES);
    expect(found.problems).toEqual([
      { file: dir, message: expect.stringMatching(/1 of its 65 files .*"a064\.md"/) },
    ]);
  });
});

describe("the named agents block of the system prompt", () => {
  const values = { cwd: "/w", dataDir: "/d", date: "2026-01-01", platform: "linux", shell: "bash" };

  it("is empty when there are none, so the prompt is the same bytes", () => {
    expect(expandSystemPrompt(DEFAULT_SYSTEM_PROMPT, { ...values, namedAgents: [] })).toBe(
      expandSystemPrompt(DEFAULT_SYSTEM_PROMPT, values),
    );
  });

  it("lists one line per agent, cutting long descriptions and counting the agents beyond the cap", () => {
    const agents = Array.from({ length: PROMPT_NAMED_AGENTS_MAX + 2 }, (_, i) => ({
      name: `agent-${i}`,
      description: i === 0 ? "d".repeat(500) : `Does task ${i}.`,
    }));
    const block = namedAgentsBlock(agents);
    const lines = block.trim().split("\n");
    expect(lines[0]).toBe("# Named agents");
    expect(lines[2]).toBe(`- agent-0: ${"d".repeat(PROMPT_NAMED_AGENT_DESCRIPTION_MAX_CHARS - 1)}…`);
    expect(lines[3]).toBe("- agent-1: Does task 1.");
    expect(lines).toHaveLength(2 + PROMPT_NAMED_AGENTS_MAX + 1);
    expect(lines.at(-1)).toBe("- (2 more not listed)");
  });
});
