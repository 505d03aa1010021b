import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { requestBegin, sessionMeta, userText } from "@penguin/protocol";
import { TraceWriter } from "@penguin/trace";
import { beforeEach, describe, expect, test } from "vitest";
import { tempDir, traceFiles } from "./helpers.js";
import { cli, cliOnTerminal, locationOf, writeChildSession, writeParentSession } from "./trace-fixtures.js";

describe("penguin sessions", () => {
  let dataRoot: string;
  const run = (args: string[], cwd?: string) => cli([...args, "--data-dir", dataRoot], { cwd });

  beforeEach(() => {
    dataRoot = tempDir("sessions");
    writeParentSession(dataRoot, "older", {
      date: new Date("2026-11-29T08:00:00.000Z"),
      workspace: "/srv/old-ws",
    });
    writeParentSession(dataRoot, "newer", {
      date: new Date("2026-11-30T09:00:00.000Z"),
      workspace: "/srv/new-ws",
      scratchpad: true,
    });
  });

  test("list shows every session newest first with its id, model, workspace and record count", async () => {
    const r = await run(["sessions", "list"]);
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^ID\s+CREATED\s+MODEL\s+WORKSPACE\s+RECORDS$/);
    expect(lines[1]).toMatch(/^newer\s+2026-11-\d\d \d\d:\d\d\s+openai\/gpt-test\s+\/srv\/new-ws\s+23$/);
    expect(lines[2]).toMatch(/^older\s+.*\/srv\/old-ws\s+23$/);
  });

  test("list --json is an array a script can read", async () => {
    const r = await run(["sessions", "list", "--json"]);
    expect(r.exitCode).toBe(0);
    const rows = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(rows.map((row) => row.id)).toEqual(["newer", "older"]);
    expect(rows[0]).toMatchObject({
      provider: "openai",
      model_id: "gpt-test",
      workspace: "/srv/new-ws",
      records: 23,
      created: "2026-11-30T09:00:00.000Z",
    });
  });

  test("list on an empty data root says so and succeeds", async () => {
    const r = await cli(["sessions", "list", "--data-dir", tempDir("empty")]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/no sessions under .*traces/);
  });

  test("show prints the meta, counts, last status, scratchpad and files", async () => {
    const r = await run(["sessions", "show", "newer"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/model\s+openai\/gpt-test/);
    expect(r.stdout).toMatch(/workspace\s+\/srv\/new-ws/);
    expect(r.stdout).toMatch(/status\s+completed/);
    expect(r.stdout).toMatch(/records\s+23 in 1 file/);
    expect(r.stdout).toMatch(/tool calls\s+2 \(2 outputs\)/);
    expect(r.stdout).toMatch(/approvals\s+1 allow, 1 deny, 0 forbidden/);
    expect(r.stdout).toMatch(/requests\s+4 \(1 failed or retried\)/);
    expect(r.stdout).toMatch(/tokens\s+2100 \(70 out, 0 cached\) · \$0\.0018/);
    expect(r.stdout).toContain(join(dataRoot, "scratchpad", "newer"));
    expect(r.stdout).toContain(traceFiles(dataRoot).find((f) => f.includes("newer_001"))!);
  });

  test("export, delete, import: the session comes back the same", async () => {
    const cwd = tempDir("export-cwd");
    const traceBefore = (await run(["trace", "newer", "--json"])).stdout;
    const showBefore = (await run(["sessions", "show", "newer"])).stdout;

    const exported = await run(["sessions", "export", "newer"], cwd);
    expect(exported.exitCode).toBe(0);
    const file = join(cwd, "newer.jsonl");
    expect(exported.stdout).toContain(`exported session newer (23 records) to ${file}`);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const deleted = await run(["sessions", "delete", "newer", "--yes"]);
    expect(deleted.exitCode).toBe(0);
    expect(deleted.stdout).toContain("deleted session newer: 1 trace file(s) and its scratchpad");
    expect(existsSync(join(dataRoot, "scratchpad", "newer"))).toBe(false);
    expect((await run(["sessions", "list", "--json"])).stdout).not.toContain('"newer"');
    expect((await run(["sessions", "show", "newer"])).exitCode).toBe(2);

    const imported = await run(["sessions", "import", file]);
    expect(imported.exitCode).toBe(0);
    expect(imported.stdout).toContain("imported session newer");
    expect((await run(["trace", "newer", "--json"])).stdout).toBe(traceBefore);
    // The scratchpad is not part of an export; everything else reads the same.
    const withoutScratchpad = (text: string) => text.replace(/^scratchpad.*$/m, "");
    expect(withoutScratchpad((await run(["sessions", "show", "newer"])).stdout)).toBe(
      withoutScratchpad(showBefore),
    );
  });

  test("export --output writes where asked and refuses to replace a file without --force", async () => {
    const file = join(tempDir("out"), "copy.jsonl");
    expect((await run(["sessions", "export", "older", "--output", file])).exitCode).toBe(0);
    const again = await run(["sessions", "export", "older", "--output", file]);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toMatch(/already exists: pass --force/);
    expect((await run(["sessions", "export", "older", "--output", file, "--force"])).exitCode).toBe(0);
    expect(readFileSync(file, "utf8").trim().split("\n")).toHaveLength(23);
  });

  test("importing a session that exists asks for --as, and --as imports a copy under the new id", async () => {
    const file = join(tempDir("out"), "older.jsonl");
    await run(["sessions", "export", "older", "--output", file]);
    const clash = await run(["sessions", "import", file]);
    expect(clash.exitCode).toBe(2);
    expect(clash.stderr).toMatch(/session older already exists.*--as <new-id>/);

    const copy = await run(["sessions", "import", file, "--as", "older-copy"]);
    expect(copy.exitCode).toBe(0);
    const show = await run(["sessions", "show", "older-copy"]);
    expect(show.stdout).toMatch(/session\s+older-copy/);
    expect(show.stdout).toMatch(/workspace\s+\/srv\/old-ws/);
  });

  test("an import file that is not a trace is refused with the line that is wrong", async () => {
    const file = join(tempDir("bad"), "bad.jsonl");
    writeFileSync(
      file,
      '{"timestamp":"2026-11-30T10:00:00Z","type":"model_msg","payload":{"type":"text","role":"user","text":"hi"}}\n',
    );
    const r = await run(["sessions", "import", file]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`${file}:1: a session must start with a session_meta record`);
    const missing = await run(["sessions", "import", join(tempDir("bad"), "nope.jsonl")]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/no file .*nope\.jsonl/);
  });

  test("on a terminal, delete asks first: no keeps the session, yes deletes it", async () => {
    const declined = await cliOnTerminal(["sessions", "delete", "older", "--data-dir", dataRoot], "n\n");
    expect(declined.output).toContain("delete session older (1 trace file and its scratchpad)? [y/N]");
    expect(declined.output).toContain("nothing deleted");
    expect(declined.exitCode).toBe(1);
    expect(traceFiles(dataRoot).some((f) => f.includes("older_001"))).toBe(true);

    const confirmed = await cliOnTerminal(["sessions", "delete", "older", "--data-dir", dataRoot], "y\n");
    expect(confirmed.output).toContain("deleted session older");
    expect(confirmed.exitCode).toBe(0);
    expect(traceFiles(dataRoot).some((f) => f.includes("older_001"))).toBe(false);
  });

  test("delete with no terminal and no --yes refuses and deletes nothing", async () => {
    const r = await run(["sessions", "delete", "older"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/stdin is not a terminal: pass --yes/);
    expect(traceFiles(dataRoot).some((f) => f.includes("older_001"))).toBe(true);
  });

  test.each([
    ["show", ["sessions", "show", "../x"]],
    ["delete", ["sessions", "delete", "../x", "--yes"]],
    ["export", ["sessions", "export", "../x"]],
    ["import --as", ["sessions", "import", "whatever.jsonl", "--as", "../x"]],
    ["trace", ["trace", "../x"]],
  ])("an id that is not one path segment is rejected (%s)", async (_name, args) => {
    const r = await run(args);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/invalid session id "\.\.\/x": ids are 1-128 letters/);
    expect(r.stderr).not.toMatch(/internal error/);
  });

  test("an unknown id names the sessions that exist", async () => {
    for (const args of [
      ["sessions", "show", "nope"],
      ["sessions", "delete", "nope", "--yes"],
      ["trace", "nope"],
    ]) {
      const r = await run(args);
      expect(r.exitCode).toBe(2);
      expect(r.stderr.trim()).toBe(
        'penguin: no session "nope": the newest are newer, older; `penguin sessions list` shows them all',
      );
    }
  });

  test("show says a session is unfinished when its last task has no end", async () => {
    const writer = TraceWriter.create(locationOf(dataRoot), "cut-short");
    writer.append(
      sessionMeta({
        session_id: "cut-short",
        provider: "openai",
        model_id: "m",
        system_prompt: "p",
        workspace: "/w",
      }),
    );
    writer.append(userText("start something long"));
    writer.append(requestBegin());
    writer.close();
    const r = await run(["sessions", "show", "cut-short"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/status\s+unfinished \(a task started and has no task_end/);
  });

  test("a child session is listed with its parent", async () => {
    writeChildSession(dataRoot, "child-1", "newer");
    const r = await run(["sessions", "list"]);
    expect(r.stdout).toMatch(/child-1 .*\(subagent of newer\)/);
  });
});
