import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { REPO_ROOT, readJsonLines, tempDir, traceFiles } from "./helpers.js";
import { cli, writeAgentTree, writeChildSession, writeParentSession } from "./trace-fixtures.js";

describe("penguin trace", () => {
  let dataRoot: string;
  const run = (args: string[]) => cli([...args, "--data-dir", dataRoot]);

  beforeAll(() => {
    dataRoot = tempDir("trace");
    writeParentSession(dataRoot, "parent", { childId: "child" });
    writeChildSession(dataRoot, "child", "parent");
  });

  test("renders what happened, in order: input, thinking, text, calls with their description and arguments, outputs", async () => {
    const r = await run(["trace", "parent"]);
    expect(r.exitCode).toBe(0);
    const out = r.stdout;
    const order = [
      "session parent · openai/gpt-test",
      "▸ user\n  Tidy up the project folder",
      "✻ thinking\n    I should look at the files before removing anything.",
      "◂ assistant\n  Let me look first.",
      "● exec_command: List the project files [call_ls]\n    cmd: ls -la /project",
      '✓ allow exec_command by mode "allow-all"',
      "← exec_command output [call_ls]",
      "│ line-1 of the listing",
      "● exec_command: Remove the build folder [call_rm]",
      '✗ deny exec_command by guardrail "recursive-delete": rm -rf outside the workspace needs a human',
      "← exec_command output [call_rm] [aborted]",
      "↻ request 3 failed: HTTP 503 from the provider; retrying in 1.5s",
      "· request 3, attempt 2",
      "◂ assistant\n  I listed the files and left the build folder alone.",
      "tokens: request 900 tokens (30 out, 0 cached) · session 2100 · $0.0018",
      "↳ subagent helper: session child",
      "■ task completed",
    ];
    let at = -1;
    for (const piece of order) {
      const found = out.indexOf(piece, at + 1);
      expect(found, `missing or out of order: ${piece}`).toBeGreaterThan(at);
      at = found;
    }
  });

  test("long outputs are folded unless --full", async () => {
    const folded = await run(["trace", "parent"]);
    expect(folded.stdout).toContain("│ line-1 of the listing");
    expect(folded.stdout).not.toContain("line-20 of the listing");
    const hidden = Number(/… (\d+) more lines …/.exec(folded.stdout)?.[1]);
    const shown = (folded.stdout.match(/│ line-\d+ of the listing/g) ?? []).length;
    expect(shown + hidden).toBe(40);
    expect(folded.stdout).toContain("│ line-40 of the listing");

    const full = await run(["trace", "parent", "--full"]);
    for (let i = 1; i <= 40; i++) expect(full.stdout).toContain(`│ line-${i} of the listing\n`);
    expect(full.stdout).not.toContain("more lines");
  });

  test("--approvals lists each decision with its command and what decided it, subagents included", async () => {
    const r = await run(["trace", "parent", "--approvals"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(
      [
        "1. allow exec_command: List the project files",
        "   command: ls -la /project",
        '   decided by: mode "allow-all"',
      ].join("\n"),
    );
    expect(r.stdout).toContain(
      [
        "2. deny exec_command: Remove the build folder",
        "   command: rm -rf /project/build",
        '   decided by: guardrail "recursive-delete"',
        "   reason: rm -rf outside the workspace needs a human",
      ].join("\n"),
    );
    expect(r.stdout).toMatch(/call call_rm · .* · outcome aborted/);
    expect(r.stdout).toContain("subagent session child (of parent)");
    expect(r.stdout).toContain(
      [
        "3. allow exec_command: Count the files",
        "   command: ls /project | wc -l",
        '   decided by: session_rule "ls *"',
      ].join("\n"),
    );
    expect(r.stdout).toContain("3 decisions: 2 allow, 1 deny, 0 forbidden");
  });

  test("--approvals shows beside an aborted outcome that the call was refused, and by whom", async () => {
    const r = await run(["trace", "parent", "--approvals"]);
    expect(r.stdout).toMatch(
      /call call_rm · .* · outcome aborted \(denied by guardrail "recursive-delete"\)\n/,
    );
    // An allowed call's outcome stands alone.
    expect(r.stdout).toMatch(/call call_ls · .* · outcome completed\n/);
  });

  test("--approvals says so when a subagent's trace is missing", async () => {
    const root = tempDir("orphan");
    writeParentSession(root, "orphan-parent", { childId: "gone" });
    const r = await cli(["trace", "orphan-parent", "--approvals", "--data-dir", root]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("subagent session gone (of orphan-parent)");
    expect(r.stdout).toContain("cannot audit session gone: its trace is missing");
    expect(r.stdout).toContain("2 decisions: 1 allow, 1 deny, 0 forbidden");
  });

  test("--approvals --json prints one audit entry per line", async () => {
    const r = await run(["trace", "parent", "--approvals", "--json"]);
    const entries = r.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(entries.map((e) => [e.session_id, e.toolCallId, e.decision, e.source.kind])).toEqual([
      ["parent", "call_ls", "allow", "mode"],
      ["parent", "call_rm", "deny", "guardrail"],
      ["child", "child_call", "allow", "session_rule"],
    ]);
  });

  test("--json prints the records of the trace, one JSON line each, in trace order", async () => {
    const r = await run(["trace", "parent", "--json"]);
    const records = r.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const [file] = traceFiles(dataRoot).filter((f) => f.includes("parent_001"));
    expect(records).toEqual(readJsonLines(file));
    expect(r.stdout).not.toContain("▸ user");
  });

  test("a warning event (a skill left out) is shown as a warning line", async () => {
    const root = tempDir("warned");
    writeParentSession(root, "warned");
    const [file] = traceFiles(root);
    const warning = {
      timestamp: "2026-11-30T10:00:09.000Z",
      type: "event_msg",
      payload: { type: "warning", source: "skills", message: "skill skipped: /w/SKILL.md: missing name" },
    };
    appendFileSync(file as string, `${JSON.stringify(warning)}\n`);
    const r = await cli(["trace", "warned", "--data-dir", root]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("! warning (skills): skill skipped: /w/SKILL.md: missing name");
  });

  test("a torn last line is skipped with a warning and the rest still renders", async () => {
    const root = tempDir("torn");
    writeParentSession(root, "torn");
    const [file] = traceFiles(root);
    appendFileSync(file, '{"timestamp":"2026-11-30T10:');
    const r = await cli(["trace", "torn", "--data-dir", root]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("■ task completed");
    expect(r.stderr).toMatch(/penguin: warning: .*torn_001\.jsonl:24: torn last line skipped/);
  });

  test("an unknown session exits 2 and says how to list sessions", async () => {
    const r = await cli(["trace", "missing", "--data-dir", tempDir("none")]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/no session "missing": there are no sessions under/);
  });

  test("a session run with a replay cassette reads back with its tool calls and outputs", async () => {
    const root = tempDir("replay");
    const workspace = tempDir("replay-ws");
    const cassette = join(REPO_ROOT, "examples/quickstart.cassette.yaml");
    const ran = await cli(
      ["run", "--model", `replay:${cassette}`, "-w", workspace, "-m", "fibonacci please"],
      {
        env: { PENGUIN_HOME: root },
      },
    );
    expect(ran.exitCode).toBe(0);
    const [session] = JSON.parse((await cli(["sessions", "list", "--json", "--data-dir", root])).stdout);
    const r = await cli(["trace", session.id, "--data-dir", root]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("● exec_command: Run the fixed program");
    expect(r.stdout).toContain("cmd: node fib.js");
    expect(r.stdout).toContain("│ sum: 88");
    expect(r.stdout).toContain("■ task completed");
  });
});

describe("penguin trace --agents", () => {
  const ids = { root: "tree-root", lead: "tree-lead", worker: "tree-worker", lost: "tree-lost" };

  test("prints one line per agent, indented by depth, with status, session, messages and questions", async () => {
    const root = tempDir("agents");
    writeAgentTree(root, ids);
    const r = await cli(["trace", ids.root, "--agents", "--data-dir", root], { env: { NO_COLOR: "1" } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trimEnd().split("\n")).toEqual([
      "root · completed · session tree-root · ✉ 1 sent, 1 received",
      "  sub_1 (reviewer) · completed · session tree-lead · ✉ 1 sent, 1 received, 1 question · Lead the review of the pull request and report back",
      "    sub_2 · interrupted · session tree-worker · ✉ 0 sent, 0 received · Run the test suite",
      "    sub_3 · unknown · session tree-lost · trace missing · Read the docs",
    ]);
  });

  test("--json prints the tree for scripts", async () => {
    const root = tempDir("agents-json");
    writeAgentTree(root, ids);
    const r = await cli(["trace", ids.root, "--agents", "--json", "--data-dir", root]);
    const tree = JSON.parse(r.stdout);
    expect(tree).toMatchObject({ agentRunId: "root", status: "completed", depth: 0 });
    expect(
      tree.children[0].children.map((c: { agentRunId: string; problem?: string }) => [
        c.agentRunId,
        c.problem,
      ]),
    ).toEqual([
      ["sub_2", undefined],
      ["sub_3", "missing"],
    ]);
  });

  test("a session run_subagent made shows its child at depth 1, its task from the child's prompt", async () => {
    const root = tempDir("agents-sub");
    writeParentSession(root, "sub-parent", { childId: "sub-child" });
    writeChildSession(root, "sub-child", "sub-parent");
    const r = await cli(["trace", "sub-parent", "--agents", "--data-dir", root]);
    expect(r.stdout.trimEnd().split("\n")).toEqual([
      "root · completed · session sub-parent · ✉ 0 sent, 0 received",
      "  helper · completed · session sub-child · ✉ 0 sent, 0 received · Count the files",
    ]);
  });
});
