import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isPayload, type OmniMessage } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { collect, MODEL, RETRY_FAST, setup, traceRecords } from "../sdk/fixtures.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { call, treeOf, writeTree } from "./support.js";

// Checkpoints and revert of a task's file changes, with real files and a real session whose model
// turns fake-llm serves over HTTP.

const EXTENDED = { tools: { preset: "extended" as const, writeGuard: false } };
const start = cleanedUpAfterEach((script: Parameters<typeof setup>[0]) =>
  setup(script, { config: EXTENDED }),
);
type Env = Awaited<ReturnType<typeof setup>>;

async function session(env: Env) {
  return env.agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL, retry: RETRY_FAST });
}

const BINARY = Buffer.from([0, 1, 2, 255, 254, 0, 10, 13, 0]);

function seed(env: Env) {
  writeTree(
    env.workspaceDir,
    {
      "a.txt": "one\ntwo\nthree\n",
      "run.sh": "#!/bin/sh\necho hi\n",
      "old.txt": "moving\n",
      "gone.txt": "bye\n",
      "dir/keep.txt": "kept\n",
      "dir/sub/deep.txt": "deep\n",
      "blob.bin": BINARY,
    },
    { "run.sh": 0o755, "gone.txt": 0o600 },
  );
  chmodSync(join(env.workspaceDir, "dir/sub"), 0o750);
}

const TASK_ONE = [
  {
    tool_calls: [
      call("c1", "write_file", { file_path: "new/deep/added.txt", content: "added\nlines\n" }),
      call("c2", "edit_file", { file_path: "a.txt", old_string: "two", new_string: "TWO" }),
      call("c3", "move_path", { source: "old.txt", destination: "moved/old.txt" }),
      call("c4", "remove_path", { path: "gone.txt" }),
      call("c5", "remove_path", { path: "dir", recursive: true }),
      call("c6", "write_file", { file_path: "run.sh", content: "#!/bin/sh\necho changed\n" }),
      call("c7", "make_directory", { path: "empty/inner" }),
      call("c8", "write_file", { file_path: "blob.bin", content: "now text\n" }),
    ],
  },
  { text: "Done." },
];

const payloads = (messages: readonly OmniMessage[], type: string) =>
  messages.filter((m) => isPayload(m, type)).map((m) => m.payload as Record<string, unknown>);

describe("a task's file changes are checkpointed and reverted", () => {
  it("reverts a task that added, edited, moved and removed files: the tree is byte-identical, modes included", async () => {
    const env = await start(TASK_ONE);
    seed(env);
    const before = treeOf(env.workspaceDir);
    const s = await session(env);
    const messages = await collect(s.run("Change things.", { approve: allowAll }));
    expect(payloads(messages, "tool_call_output").every((p) => !String(p.output).startsWith("Error"))).toBe(
      true,
    );
    const after = treeOf(env.workspaceDir);
    expect(after["moved/old.txt"]).toBeDefined();
    expect(after["old.txt"]).toBeUndefined();
    expect(after.dir).toBeUndefined();
    expect(after["empty/inner"]).toMatch(/^dir /);
    expect(after["new/deep/added.txt"]).toBeDefined();
    expect(readFileSync(join(env.workspaceDir, "run.sh"), "utf8")).toContain("changed");

    // The store is private: blobs 0600 in directories 0700, one blob per distinct content.
    const store = join(s.scratchpadDir, "checkpoints");
    expect(statSync(store).mode & 0o777).toBe(0o700);
    expect(statSync(join(store, "blobs")).mode & 0o777).toBe(0o700);
    const blobs = readdirSync(join(store, "blobs"));
    expect(blobs.length).toBeGreaterThan(0);
    for (const name of blobs) expect(statSync(join(store, "blobs", name)).mode & 0o777).toBe(0o600);

    // The summary is an event at the task's end, and in the trace.
    const [event] = payloads(messages, "task_changes");
    expect(event?.change_set).toBe("1");
    const byPath = Object.fromEntries(
      ((event?.files ?? []) as { path: string }[]).map((f) => [f.path.slice(env.workspaceDir.length + 1), f]),
    );
    expect(byPath["a.txt"]).toMatchObject({ status: "changed", lines_added: 1, lines_removed: 1 });
    expect(byPath["new/deep/added.txt"]).toMatchObject({ status: "added", lines_added: 2, lines_removed: 0 });
    expect(byPath["moved/old.txt"]).toMatchObject({
      status: "moved",
      from: join(env.workspaceDir, "old.txt"),
    });
    expect(byPath["gone.txt"]).toMatchObject({ status: "removed", lines_removed: 1 });
    expect(byPath["dir/sub/deep.txt"]).toMatchObject({ status: "removed" });
    expect(byPath["blob.bin"]).toMatchObject({ status: "changed", lines_added: 0, lines_removed: 0 });
    expect(payloads(traceRecords(s.tracePath), "task_changes")).toHaveLength(1);
    // Just before the task's end, in the stream and in the trace: a task_end still ends the task.
    const types = (records: readonly OmniMessage[]) =>
      records.map((m) => (m.type === "session_meta" ? "" : (m.payload as { type: string }).type));
    expect(types(messages).slice(-2)).toEqual(["task_changes", "task_end"]);
    expect(types(traceRecords(s.tracePath)).slice(-2)).toEqual(["task_changes", "task_end"]);

    const summary = await s.changes(1, { diff: true });
    expect(summary?.diff).toContain("-two\n+TWO");
    expect(summary?.diff).toContain(`Binary file ${join(env.workspaceDir, "blob.bin")} changed`);

    const dry = await s.revert(1, { dryRun: true });
    expect(dry?.dryRun).toBe(true);
    expect(dry?.conflicts).toEqual([]);
    expect(treeOf(env.workspaceDir)).not.toEqual(before);

    const outcome = await s.revert(1);
    expect(outcome?.conflicts).toEqual([]);
    expect(outcome?.changeSet).toBe("undo-1");
    expect(treeOf(env.workspaceDir)).toEqual(before);
    expect(payloads(traceRecords(s.tracePath), "changes_reverted")).toMatchObject([
      { change_set: "undo-1", reverted: "1", forced: false },
    ]);
    await s.dispose();
  });

  it("leaves a file changed since alone and reports both hashes; force overwrites it", async () => {
    const env = await start(TASK_ONE);
    seed(env);
    const before = treeOf(env.workspaceDir);
    const s = await session(env);
    await collect(s.run("Change things.", { approve: allowAll }));
    // Someone edits a file the task changed.
    writeFileSync(join(env.workspaceDir, "a.txt"), "edited by hand\n");

    const outcome = await s.revert();
    expect(outcome?.conflicts).toHaveLength(1);
    const [conflict] = outcome?.conflicts ?? [];
    expect(conflict).toMatchObject({ path: join(env.workspaceDir, "a.txt"), reason: "changed_since" });
    expect(conflict?.expected_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(conflict?.current_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(conflict?.current_sha256).not.toBe(conflict?.expected_sha256);
    expect(readFileSync(join(env.workspaceDir, "a.txt"), "utf8")).toBe("edited by hand\n");
    // Everything else is back.
    const { "a.txt": _edited, ...rest } = treeOf(env.workspaceDir);
    const { "a.txt": _original, ...restBefore } = before;
    expect(rest).toEqual(restBefore);

    const forced = await s.revert(1, { force: true });
    expect(forced?.restored).toEqual([join(env.workspaceDir, "a.txt")]);
    expect(treeOf(env.workspaceDir)).toEqual(before);
    await s.dispose();
  });

  it("reverts every file an apply_patch touched: added, updated, moved (mode kept) and deleted", async () => {
    const patch = [
      "*** Begin Patch",
      "*** Add File: docs/new.md",
      "+# New",
      "*** Update File: main.py",
      "@@",
      "-print('hi')",
      "+print('hello')",
      "*** Update File: tool.sh",
      "*** Move to: bin/tool.sh",
      "*** Delete File: gone.txt",
      "*** End Patch",
    ].join("\n");
    const env = await start([{ tool_calls: [call("p1", "apply_patch", { patch })] }, { text: "Patched." }]);
    writeTree(
      env.workspaceDir,
      { "main.py": "print('hi')\n", "tool.sh": "echo 1\n", "gone.txt": "bye\n" },
      { "tool.sh": 0o755 },
    );
    const before = treeOf(env.workspaceDir);
    const s = await session(env);
    await collect(s.run("Patch.", { approve: allowAll }));
    const after = treeOf(env.workspaceDir);
    expect(after["bin/tool.sh"]).toMatch(/^file 755 /);
    expect(after["docs/new.md"]).toBeDefined();
    const summary = await s.changes(1);
    const statuses = Object.fromEntries(
      (summary?.files ?? []).map((f) => [f.path.slice(env.workspaceDir.length + 1), f.status]),
    );
    expect(statuses).toMatchObject({
      "docs/new.md": "added",
      "main.py": "changed",
      "bin/tool.sh": "moved",
      "gone.txt": "removed",
    });
    const outcome = await s.revert(1);
    expect(outcome?.conflicts).toEqual([]);
    expect(treeOf(env.workspaceDir)).toEqual(before);
    await s.dispose();
  });

  it("a revert is recorded and can itself be reverted", async () => {
    const env = await start(TASK_ONE);
    seed(env);
    const s = await session(env);
    await collect(s.run("Change things.", { approve: allowAll }));
    const changed = treeOf(env.workspaceDir);
    const outcome = await s.revert(1);
    expect(outcome?.changeSet).toBe("undo-1");
    const undo = await s.revert("undo-1");
    expect(undo?.conflicts).toEqual([]);
    expect(treeOf(env.workspaceDir)).toEqual(changed);
    // The task counts as not reverted again: an undo with no task named reverts it once more.
    const again = await s.revert();
    expect(again?.reverted).toBe("1");
    await s.dispose();
  });
  it("many edits of one file in a task keep its first and latest content only, and the revert still restores it", async () => {
    const edits = Array.from({ length: 30 }, (_, n) =>
      call(`e${n}`, "edit_file", {
        file_path: "big.txt",
        old_string: `line ${n}\n`,
        new_string: `LINE ${n}\n`,
      }),
    );
    // One call a turn, as a model editing a file again and again does.
    const env = await start([...edits.map((edit) => ({ tool_calls: [edit] })), { text: "Done." }]);
    const original = `${Array.from({ length: 2000 }, (_, n) => `line ${n}\n`).join("")}`;
    writeTree(env.workspaceDir, { "big.txt": original });
    const s = await session(env);
    await collect(s.run("Edit it.", { approve: allowAll }));
    expect(readFileSync(join(env.workspaceDir, "big.txt"), "utf8")).toContain("LINE 29\n");

    const blobs = readdirSync(join(s.scratchpadDir, "checkpoints", "blobs")).filter(
      (n) => !n.startsWith("."),
    );
    expect(blobs).toHaveLength(2);
    const summary = await s.changes(1, { diff: true });
    expect(summary?.files).toHaveLength(1);
    expect(summary?.files[0]).toMatchObject({ lines_added: 30, lines_removed: 30 });
    expect(summary?.diff).toContain("+LINE 29");

    await s.revert(1);
    expect(readFileSync(join(env.workspaceDir, "big.txt"), "utf8")).toBe(original);
    await s.dispose();
  });
});
