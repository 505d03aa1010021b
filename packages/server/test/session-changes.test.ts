import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type ErrorBody, memberSession, readJson, request } from "./helpers.js";
import {
  envelopes,
  eventually,
  payloadType,
  type SessionServer,
  sessionServer,
  waitForEnvelope,
  waitForServerEvent,
} from "./session-fixture.js";

// GET /api/sessions/:id/changes and POST /api/sessions/:id/revert over a real server: a task's
// real file tools change real files, and the revert puts them back, through the open session or
// from the trace of a released one.

interface ChangeSetRow {
  change_set: string;
  kind: "task" | "revert";
  reverts?: string;
  reverted_by?: string;
  files: { path: string; status: string; kind: string; lines_added: number; lines_removed: number }[];
  commands?: unknown;
  diff?: string;
}
interface RevertAnswer {
  session_id: string;
  reverted: string;
  change_set: string | null;
  restored: string[];
  conflicts: {
    path: string;
    reason: string;
    expected_sha256?: string | null;
    current_sha256?: string | null;
  }[];
  dry_run: boolean;
  forced: boolean;
  commands?: unknown;
}

const ORIGINAL = "one\ntwo\nthree\n";

/** A task that edits a.txt (after reading it) and writes a new notes.md. */
const EDIT_TASK = [
  { tool_calls: [{ id: "call_read", name: "read_file", arguments: { file_path: "a.txt" } }] },
  {
    tool_calls: [
      {
        id: "call_edit",
        name: "edit_file",
        arguments: { file_path: "a.txt", old_string: "two", new_string: "TWO" },
      },
      {
        id: "call_write",
        name: "write_file",
        arguments: { file_path: "notes.md", content: "# Notes\nfirst\n" },
      },
    ],
  },
  { text: "Edited." },
];

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

async function changesOf(s: SessionServer, id: string, query = ""): Promise<ChangeSetRow[]> {
  const response = await s.call(`/api/sessions/${id}/changes${query}`);
  expect(response.status).toBe(200);
  return (await readJson<{ change_sets: ChangeSetRow[] }>(response)).change_sets;
}

async function revert(s: SessionServer, id: string, body: Record<string, unknown>) {
  const response = await s.call(`/api/sessions/${id}/revert`, { json: body });
  return { status: response.status, body: await readJson<RevertAnswer & ErrorBody>(response) };
}

/** A session whose first task ran EDIT_TASK to its end, and its open stream. */
async function editedSession(options: { idleReleaseMs?: number } = {}) {
  const s = await sessionServer(EDIT_TASK, options);
  await writeFile(join(s.workspace, "a.txt"), ORIGINAL);
  const id = await s.createSession({ approval_mode: "allow-all" });
  const stream = await s.stream(id);
  expect((await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Edit things" } })).status).toBe(202);
  await waitForEnvelope(stream, "task_end");
  await waitForServerEvent(stream, "task_state", 3);
  const a = join(s.workspace, "a.txt");
  const notes = join(s.workspace, "notes.md");
  expect(await readFile(a, "utf8")).toBe("one\nTWO\nthree\n");
  expect(await readFile(notes, "utf8")).toBe("# Notes\nfirst\n");
  return { s, id, stream, a, notes };
}

describe("a session's file changes and their revert through the API", () => {
  it("lists a task's changes, previews the revert, reverts it byte-identically (streamed, recorded) and reverts the revert", async () => {
    const { s, id, stream, a, notes } = await editedSession();

    const listed = await changesOf(s, id);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ change_set: "1", kind: "task" });
    expect(listed[0].reverted_by).toBeUndefined();
    expect(listed[0].files).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          path: a,
          status: "changed",
          kind: "file",
          lines_added: 1,
          lines_removed: 1,
        }),
        expect.objectContaining({
          path: notes,
          status: "added",
          kind: "file",
          lines_added: 2,
          lines_removed: 0,
        }),
      ]),
    );
    const [withDiff] = await changesOf(s, id, "?task=1&diff=1");
    expect(withDiff.diff).toContain("-two");
    expect(withDiff.diff).toContain("+TWO");
    expect(listed[0].diff).toBeUndefined();

    // A dry run lists what would be restored and changes nothing.
    const preview = await revert(s, id, { task: "1", dry_run: true });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ session_id: id, reverted: "1", change_set: null, dry_run: true });
    expect(preview.body.restored.sort()).toEqual([a, notes].sort());
    expect(preview.body.conflicts).toEqual([]);
    expect(await readFile(a, "utf8")).toBe("one\nTWO\nthree\n");
    expect(existsSync(notes)).toBe(true);

    const done = await revert(s, id, { task: "1" });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ reverted: "1", change_set: "undo-1", dry_run: false, conflicts: [] });
    expect(await readFile(a, "utf8")).toBe(ORIGINAL);
    expect(existsSync(notes)).toBe(false);

    // The revert reaches the live stream and the trace.
    const streamed = await waitForEnvelope(stream, "changes_reverted");
    expect(streamed.find((m) => payloadType(m) === "changes_reverted")?.payload).toMatchObject({
      change_set: "undo-1",
      reverted: "1",
      forced: false,
    });
    const trace = await readJson<{ records: { type: string; payload?: { type?: string } }[] }>(
      await s.call(`/api/sessions/${id}/trace`),
    );
    expect(trace.records.some((r) => r.payload?.type === "changes_reverted")).toBe(true);

    const afterRevert = await changesOf(s, id);
    expect(afterRevert.map((row) => [row.change_set, row.kind, row.reverts, row.reverted_by])).toEqual([
      ["undo-1", "revert", "1", undefined],
      ["1", "task", undefined, "undo-1"],
    ]);
    // Nothing is left to revert by default.
    const nothing = await revert(s, id, {});
    expect(nothing.status).toBe(422);
    expect(nothing.body.error).toBe("nothing_to_revert");

    // The revert is itself reverted: the task's changes are back, and the task counts as not reverted.
    const again = await revert(s, id, { task: "undo-1" });
    expect(again.body).toMatchObject({ reverted: "undo-1", change_set: "undo-2" });
    expect(await readFile(a, "utf8")).toBe("one\nTWO\nthree\n");
    expect(await readFile(notes, "utf8")).toBe("# Notes\nfirst\n");
    const rows = await changesOf(s, id);
    expect(rows.find((row) => row.change_set === "1")?.reverted_by).toBeUndefined();
    expect(rows.find((row) => row.change_set === "undo-1")?.reverted_by).toBe("undo-2");
  });

  it("leaves a file changed since the task alone as a conflict with both hashes; force restores it (a released session, from its trace)", async () => {
    const { s, id, a, notes } = await editedSession({ idleReleaseMs: 100 });
    await eventually(() => s.server.sessions.runtime(id) === undefined, "the runtime to be released");

    const outside = "one\nTWO\nthree\nedited outside\n";
    await writeFile(a, outside);
    const conflicted = await revert(s, id, {});
    expect(conflicted.status).toBe(200);
    expect(conflicted.body.reverted).toBe("1");
    expect(conflicted.body.restored).toEqual([notes]);
    expect(conflicted.body.conflicts).toEqual([
      {
        path: a,
        reason: "changed_since",
        expected_sha256: sha256("one\nTWO\nthree\n"),
        current_sha256: sha256(outside),
      },
    ]);
    expect(await readFile(a, "utf8")).toBe(outside);
    expect(existsSync(notes)).toBe(false);
    // It was reverted offline: the server still holds no runtime for it.
    expect(s.server.sessions.runtime(id)).toBeUndefined();

    const forced = await revert(s, id, { task: "1", force: true });
    expect(forced.status).toBe(200);
    expect(forced.body).toMatchObject({ forced: true, change_set: "undo-2", restored: [a] });
    expect(await readFile(a, "utf8")).toBe(ORIGINAL);
    const rows = await changesOf(s, id);
    expect(rows.map((row) => row.change_set)).toEqual(["undo-2", "undo-1", "1"]);
  });

  it("lists what a task's commands changed in a git workspace as not undoable, and a revert leaves those files", async () => {
    const s = await sessionServer([
      {
        tool_calls: [
          { id: "c_write", name: "write_file", arguments: { file_path: "notes.md", content: "n\n" } },
          {
            id: "c_cmd",
            name: "exec_command",
            arguments: { description: "make", cmd: "echo made > made.txt" },
          },
        ],
      },
      { text: "Done." },
    ]);
    execFileSync("git", ["init", "-q"], {
      cwd: s.workspace,
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" },
    });
    const id = await s.createSession({ approval_mode: "allow-all" });
    const stream = await s.stream(id);
    expect((await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Make things" } })).status).toBe(202);
    await waitForEnvelope(stream, "task_end");
    await waitForServerEvent(stream, "task_state", 3);
    const made = join(s.workspace, "made.txt");

    const [row] = await changesOf(s, id);
    expect(row?.files.map((file) => file.path)).toEqual([join(s.workspace, "notes.md")]);
    expect(row?.commands).toEqual({ tracked: "git", files: [{ path: made, status: "added" }] });

    const reverted = await revert(s, id, {});
    expect(reverted.status).toBe(200);
    expect(reverted.body.restored).toEqual([join(s.workspace, "notes.md")]);
    expect(reverted.body.commands).toEqual(row?.commands);
    expect(await readFile(made, "utf8")).toBe("made\n");
  });

  it.runIf(process.platform === "linux")(
    "refuses a revert (409 session_held) while another process has the session open; a dry run still answers",
    async () => {
      const { s, id, a } = await editedSession({ idleReleaseMs: 100 });
      await eventually(() => s.server.sessions.runtime(id) === undefined, "the runtime to be released");
      // Another process holds it, as `penguin chat --resume` would: its holder file names it.
      const other = spawn("sleep", ["60"], { stdio: "ignore" });
      try {
        const pid = other.pid as number;
        const stat = await readFile(`/proc/${pid}/stat`, "utf8");
        const startTicks = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
        const bootId = (await readFile("/proc/sys/kernel/random/boot_id", "utf8")).trim();
        await writeFile(
          join(s.dataRoot, "scratchpad", id, "holder.json"),
          JSON.stringify({ pid, startTicks, bootId, since: "2026-12-03T10:00:00.000Z" }),
        );
        const held = await revert(s, id, {});
        expect(held.status).toBe(409);
        expect(held.body.error).toBe("session_held");
        expect(held.body.message).toContain(`is open in another process (pid ${pid}`);
        expect(await readFile(a, "utf8")).toBe("one\nTWO\nthree\n");
        expect((await revert(s, id, { dry_run: true })).status).toBe(200);
      } finally {
        other.kill("SIGKILL");
      }
    },
  );

  it("refuses a revert while a task runs (409), an unknown change set (422), bad bodies (400), anonymous callers (401) and other users (404)", async () => {
    const s = await sessionServer([
      {
        tool_calls: [
          { id: "call_wait", name: "write_file", arguments: { file_path: "w.txt", content: "w\n" } },
        ],
      },
      { text: "never" },
    ]);
    const id = await s.createSession({ approval_mode: "always-ask" });
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Write w.txt" } });
    await waitForServerEvent(stream, "approval_request");
    const busy = await revert(s, id, { task: "1" });
    expect(busy.status).toBe(409);
    expect(busy.body.error).toBe("task_in_progress");
    await s.call(`/api/sessions/${id}/abort`, { json: {} });
    await waitForEnvelope(stream, "task_end");

    const unknown = await revert(s, id, { task: "7" });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toBe("unknown_change_set");
    expect((await s.call(`/api/sessions/${id}/changes?task=7`)).status).toBe(422);
    for (const body of [{ task: "../etc/passwd" }, { task: "1", path: "/etc/passwd" }, { dry_run: "yes" }]) {
      expect((await s.call(`/api/sessions/${id}/revert`, { json: body })).status, JSON.stringify(body)).toBe(
        400,
      );
    }

    const anonymous = await request(s.server.url, `/api/sessions/${id}/revert`, { json: { dry_run: true } });
    expect(anonymous.status).toBe(401);
    expect((await request(s.server.url, `/api/sessions/${id}/changes`, {})).status).toBe(401);
    const other = await memberSession(s.server, s.cookie, "mallory");
    for (const [method, path, json] of [
      ["GET", `/api/sessions/${id}/changes`, undefined],
      ["POST", `/api/sessions/${id}/revert`, { dry_run: true }],
    ] as const) {
      const response = await request(s.server.url, path, { method, cookie: other, json });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    expect(envelopes(stream.events).some((m) => payloadType(m) === "changes_reverted")).toBe(false);
  });
});
