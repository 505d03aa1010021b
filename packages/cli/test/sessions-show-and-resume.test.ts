import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeLlm, startFakeLlm } from "@penguin/fake-llm";
import { afterEach, describe, expect, test } from "vitest";
import { kindOf, readJsonLines, tempDir, traceFiles } from "./helpers.js";
import { TerminalRun } from "./pty.js";
import { cli, writeChildSession, writeParentSession } from "./trace-fixtures.js";

const API_KEY = "sk-test-penguin-show-resume-0123456789";
const QUESTION = "allow? [y/N/p/a]";

describe("penguin sessions show --json", () => {
  test("prints one JSON object: id, created, meta, files, scratchpad, stats, diagnostics and the journal's uncertain and resolved steps", async () => {
    const dataRoot = tempDir("show-json");
    writeParentSession(dataRoot, "parent-1", { childId: "child-1", scratchpad: true });
    writeChildSession(dataRoot, "child-1", "parent-1");
    const r = await cli(["sessions", "show", "parent-1", "--json", "--data-dir", dataRoot]);
    expect(r.exitCode).toBe(0);
    const shown = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(shown).sort()).toEqual(
      [
        "created",
        "diagnostics",
        "files",
        "id",
        "meta",
        "processes",
        "resolved",
        "scratchpad",
        "stats",
        "uncertain",
      ].sort(),
    );
    // A session that ended cleanly leaves nothing uncertain and nothing decided.
    expect(shown).toMatchObject({ uncertain: [], resolved: [], processes: [] });
    const [file] = traceFiles(dataRoot).filter((f) => f.includes("parent-1"));
    expect(shown).toMatchObject({
      id: "parent-1",
      created: "2026-11-30T10:00:00.000Z",
      meta: { session_id: "parent-1", provider: "openai", model_id: "gpt-test", agent_id: "default" },
      files: [{ file, records: 24 }],
      scratchpad: join(dataRoot, "scratchpad", "parent-1"),
      diagnostics: [],
    });
    expect((shown.files as Array<{ bytes: number }>)[0].bytes).toBeGreaterThan(0);
    expect(shown.stats).toMatchObject({
      records: 24,
      toolCalls: 2,
      toolOutputs: 2,
      decisions: { allow: 1, deny: 1, forbidden: 0 },
      requests: 4,
      failedRequests: 1,
      tasks: 1,
      subagents: ["child-1"],
      tokens: { total: 2100, output: 70, cache_read: 0, cache_write: 0 },
      costUsd: 0.0018,
      lastStatus: { status: "completed" },
    });
    // The meta is given once, at the top, not repeated inside the stats.
    expect(shown.stats).not.toHaveProperty("firstMeta");
    expect(shown.stats).not.toHaveProperty("latestMeta");
  });

  test("a session without a scratchpad has scratchpad null; a torn line is a diagnostic, stdout stays JSON", async () => {
    const dataRoot = tempDir("show-json");
    writeParentSession(dataRoot, "torn-1");
    const [file] = traceFiles(dataRoot);
    appendFileSync(file, '{"timestamp":"2026-11-30T10:01:00.000Z","type":"event_m');
    const r = await cli(["sessions", "show", "torn-1", "--json", "--data-dir", dataRoot]);
    expect(r.exitCode).toBe(0);
    const shown = JSON.parse(r.stdout) as { scratchpad: unknown; diagnostics: unknown[]; stats: object };
    expect(shown.scratchpad).toBeNull();
    expect(shown.diagnostics).toHaveLength(1);
    // The 23 readable records (no subagent pointer in this one); the torn line is not one.
    expect(shown.stats).toMatchObject({ records: 23, lastStatus: { status: "completed" } });
  });
});

describe("run --resume keeps the session rules granted at the terminal", () => {
  let llm: FakeLlm | undefined;
  afterEach(async () => {
    await llm?.close();
    llm = undefined;
  });

  const command = (cmd: string, description: string) => ({
    tool_calls: [{ name: "exec_command", arguments: { description, cmd } }],
  });

  test('a "p" prefix rule approves a matching command after --resume without asking; another command still asks', async () => {
    llm = await startFakeLlm({
      apiKey: API_KEY,
      script: [
        command("ls -la", "List the folder"),
        { text: "Listed." },
        command("ls", "List it again"),
        command("printf other-out", "Print something else"),
        { text: "Second task done." },
      ],
    });
    const dataRoot = tempDir("data");
    const ws = tempDir("ws");
    writeFileSync(join(ws, "marker-file.txt"), "x\n");
    const env = { PENGUIN_HOME: dataRoot, OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${llm.url}/v1` };

    const first = new TerminalRun(
      ["run", "--approve", "always-ask", "--model", "openai/fake-model", "-w", ws, "-m", "list"],
      env,
    );
    await first.waitFor(QUESTION);
    expect(first.screen).toContain('p allow commands starting with "ls"');
    first.type("p\r");
    expect(await first.exitCode()).toBe(0);
    expect(first.screen).toContain("Listed.");
    const [trace] = traceFiles(dataRoot);
    const id = String(readJsonLines(trace)[0].payload.session_id);

    const second = new TerminalRun(["run", "--approve", "always-ask", "--resume", id, "-m", "again"], env);
    // The only question is about printf: the ls call ran under the rule from the first run.
    await second.waitFor(QUESTION);
    expect(second.screen).toContain("$ printf other-out");
    expect(second.screen).toContain("marker-file.txt");
    second.type("y\r");
    expect(await second.exitCode()).toBe(0);
    expect(second.screen.match(/allow\? \[y\/N\/p\/a\]/g)).toHaveLength(1);
    expect(second.screen).toContain("Second task done.");

    const decisions = traceFiles(dataRoot)
      .flatMap((f) => readJsonLines(f))
      .filter((r) => kindOf(r) === "approval_decision")
      .map((r) => ({ decision: r.payload.decision, by: (r.payload.source as { kind: string }).kind }));
    expect(decisions).toEqual([
      { decision: "allow", by: "human" },
      { decision: "allow", by: "session_rule" },
      { decision: "allow", by: "human" },
    ]);
  });
});
