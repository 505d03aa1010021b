import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FileEffect } from "@penguin/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { collect, MODEL, setup, traceRecords } from "../sdk/fixtures.js";

// Each file tool journals what it is about to change (tool_effect) before it changes anything,
// with each file's sha256 before and after: the evidence a resume checks after a crash.

const envs: Awaited<ReturnType<typeof setup>>[] = [];
afterEach(async () => {
  await Promise.all(envs.splice(0).map((env) => env.cleanup()));
});

const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, name, arguments: args });

/** Runs one model turn of `calls` with the extended tools and returns each call's journal records. */
async function runCalls(calls: ReturnType<typeof call>[], prepare: (workspace: string) => void) {
  const env = await setup([{ tool_calls: calls }, { text: "done" }], {
    config: { tools: { preset: "extended", writeGuard: false } },
  });
  envs.push(env);
  prepare(env.workspaceDir);
  const session = await env.agent.createSession({ workspaceDir: env.workspaceDir, model: MODEL });
  await collect(session.run("Change the files.", { approve: allowAll }));
  await session.dispose();
  const records = traceRecords(session.tracePath);
  const steps = (id: string) =>
    records
      .map((r) => r.payload as { type: string; tool_call_id?: string; files?: FileEffect[] })
      .filter((p) => p.tool_call_id === id)
      .map((p) => p.type);
  const effects = (id: string) =>
    records
      .map((r) => r.payload as { type: string; tool_call_id?: string; files?: FileEffect[] })
      .filter((p) => p.type === "tool_effect" && p.tool_call_id === id)
      .flatMap((p) => p.files ?? []);
  return { workspace: env.workspaceDir, steps, effects };
}

describe("file tools journal their effect before they change anything", () => {
  it("write_file: a new file (absent before) and an overwrite (the old hash before, the new after)", async () => {
    const { workspace, steps, effects } = await runCalls(
      [
        call("c_new", "write_file", { file_path: "new.txt", content: "fresh\n" }),
        call("c_over", "write_file", { file_path: "old.txt", content: "second\n" }),
      ],
      (ws) => writeFileSync(join(ws, "old.txt"), "first\n"),
    );
    expect(effects("c_new")).toEqual([
      { path: join(workspace, "new.txt"), before_sha256: null, after_sha256: sha("fresh\n") },
    ]);
    expect(effects("c_over")).toEqual([
      { path: join(workspace, "old.txt"), before_sha256: sha("first\n"), after_sha256: sha("second\n") },
    ]);
    // The effect is recorded after the dispatch and before the result; the prior state's
    // checkpoint before the effect, the state the call left after it.
    expect(steps("c_over")).toEqual([
      "tool_call",
      "approval_decision",
      "tool_dispatched",
      "file_checkpoint",
      "tool_effect",
      "file_checkpoint",
      "tool_call_output",
    ]);
    expect(readFileSync(join(workspace, "old.txt"), "utf8")).toBe("second\n");
  });

  it("edit_file: the file's hash before the edit and the hash of the edited text", async () => {
    const { workspace, effects } = await runCalls(
      [call("c_edit", "edit_file", { file_path: "a.txt", old_string: "one", new_string: "two" })],
      (ws) => writeFileSync(join(ws, "a.txt"), "one\nline\n"),
    );
    expect(effects("c_edit")).toEqual([
      { path: join(workspace, "a.txt"), before_sha256: sha("one\nline\n"), after_sha256: sha("two\nline\n") },
    ]);
    expect(readFileSync(join(workspace, "a.txt"), "utf8")).toBe("two\nline\n");
  });

  it("apply_patch: every file it touches — added, updated, deleted and moved", async () => {
    const patch = [
      "*** Begin Patch",
      "*** Add File: added.txt",
      "+hello",
      "*** Update File: upd.txt",
      "@@",
      "-a",
      "+b",
      "*** Delete File: gone.txt",
      "*** Update File: src.txt",
      "*** Move to: dst.txt",
      "@@",
      "-x",
      "+y",
      "*** End Patch",
    ].join("\n");
    const { workspace, effects } = await runCalls([call("c_patch", "apply_patch", { patch })], (ws) => {
      writeFileSync(join(ws, "upd.txt"), "a\n");
      writeFileSync(join(ws, "gone.txt"), "bye\n");
      writeFileSync(join(ws, "src.txt"), "x\n");
    });
    const byPath = Object.fromEntries(effects("c_patch").map((f) => [f.path, f]));
    expect(byPath).toEqual({
      [join(workspace, "added.txt")]: {
        path: join(workspace, "added.txt"),
        before_sha256: null,
        after_sha256: sha("hello\n"),
      },
      [join(workspace, "upd.txt")]: {
        path: join(workspace, "upd.txt"),
        before_sha256: sha("a\n"),
        after_sha256: sha("b\n"),
      },
      [join(workspace, "gone.txt")]: {
        path: join(workspace, "gone.txt"),
        before_sha256: sha("bye\n"),
        after_sha256: null,
      },
      [join(workspace, "src.txt")]: {
        path: join(workspace, "src.txt"),
        before_sha256: sha("x\n"),
        after_sha256: null,
      },
      [join(workspace, "dst.txt")]: {
        path: join(workspace, "dst.txt"),
        before_sha256: null,
        after_sha256: sha("y\n"),
      },
    });
    expect(readFileSync(join(workspace, "dst.txt"), "utf8")).toBe("y\n");
    expect(readFileSync(join(workspace, "added.txt"), "utf8")).toBe("hello\n");
  });

  it("remove_path and move_path: a removed file has no hash after; a moved one changes place", async () => {
    const { workspace, effects } = await runCalls(
      [
        call("c_rm", "remove_path", { path: "doomed.txt" }),
        call("c_mv", "move_path", { source: "from.txt", destination: "sub/to.txt" }),
      ],
      (ws) => {
        writeFileSync(join(ws, "doomed.txt"), "x");
        writeFileSync(join(ws, "from.txt"), "moving");
      },
    );
    expect(effects("c_rm")).toEqual([
      { path: join(workspace, "doomed.txt"), before_sha256: sha("x"), after_sha256: null },
    ]);
    expect(effects("c_mv")).toEqual([
      { path: join(workspace, "from.txt"), before_sha256: sha("moving"), after_sha256: null },
      { path: join(workspace, "sub/to.txt"), before_sha256: null, after_sha256: sha("moving") },
    ]);
    expect(existsSync(join(workspace, "doomed.txt"))).toBe(false);
    expect(readFileSync(join(workspace, "sub/to.txt"), "utf8")).toBe("moving");
  });

  it("a call refused before it changes anything journals no effect", async () => {
    const { effects, steps } = await runCalls(
      [call("c_bad", "edit_file", { file_path: "a.txt", old_string: "absent", new_string: "x" })],
      (ws) => writeFileSync(join(ws, "a.txt"), "one\n"),
    );
    expect(steps("c_bad")).toContain("tool_dispatched");
    expect(effects("c_bad")).toEqual([]);
  });
});
