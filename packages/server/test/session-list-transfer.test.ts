import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ErrorBody, memberSession, readJson } from "./helpers.js";
import { eventually, MODEL, sessionServer, waitForEnvelope } from "./session-fixture.js";

interface ListedSession {
  id: string;
  title: string;
  state: string;
  model_id: string;
  provider: string;
  created_at: string;
  updated_at: string;
  cost_usd: number | null;
  total_tokens: number;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

describe("the session list, rename, delete, export and import", () => {
  it("lists each session with its title from the first message, times, state, model, and the cost /api/usage sums", async () => {
    const s = await sessionServer([{ text: "Hello there." }]);
    const id = await s.createSession();
    const stream = await s.stream(id);
    const task = await s.call(`/api/sessions/${id}/tasks`, {
      json: { input: "\n   Fix the login page   \nIt crashes on submit." },
    });
    expect(task.status).toBe(202);
    await waitForEnvelope(stream, "task_end");
    const listed = await eventually(async () => {
      const { sessions } = await readJson<{ sessions: ListedSession[] }>(await s.call("/api/sessions"));
      return sessions[0]?.state === "idle" && sessions[0].total_tokens > 0 ? sessions[0] : undefined;
    }, "the task's usage in the list");
    expect(listed).toMatchObject({
      id,
      title: "Fix the login page",
      provider: "fake",
      model_id: "fake-model",
    });
    expect(Date.parse(listed.updated_at)).toBeGreaterThanOrEqual(Date.parse(listed.created_at));
    const usage = await readJson<{
      sessions: { session_id: string; cost_usd: number; total_tokens: number }[];
    }>(await s.call("/api/usage"));
    const own = usage.sessions.find((row) => row.session_id === id);
    expect(listed.cost_usd).toBeGreaterThan(0);
    expect(listed.cost_usd).toBe(own?.cost_usd);
    expect(listed.total_tokens).toBe(own?.total_tokens);

    // A second task keeps the title; a rename replaces it.
    const renamed = await s.call(`/api/sessions/${id}`, { method: "PATCH", json: { title: "Login fix" } });
    expect(renamed.status).toBe(200);
    const after = await readJson<{ sessions: ListedSession[] }>(await s.call("/api/sessions"));
    expect(after.sessions[0].title).toBe("Login fix");
  });

  it("refuses to delete a session while its task runs, or while another process holds it", async () => {
    const s = await sessionServer([
      { text: "A slow answer streamed in many small pieces.", chunk_size: 2, chunk_delay_ms: 100 },
    ]);
    const id = await s.createSession();
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Talk slowly" } });
    await waitForEnvelope(stream, "partial_text");
    const refused = await s.call(`/api/sessions/${id}`, { method: "DELETE" });
    expect(refused.status).toBe(409);
    expect(await readJson<ErrorBody>(refused)).toMatchObject({ error: "task_in_progress" });
    await s.call(`/api/sessions/${id}/abort`, { json: {} });
    await waitForEnvelope(stream, "task_end");

    // Another live process (a penguin chat on this machine) holds the session.
    const other = spawn("sleep", ["60"], { stdio: "ignore" });
    children.push(other);
    const pid = other.pid as number;
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const startTicks = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    const bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const scratchpad = join(s.dataRoot, "scratchpad", id);
    await mkdir(scratchpad, { recursive: true });
    await writeFile(
      join(scratchpad, "holder.json"),
      JSON.stringify({ pid, startTicks, bootId, since: new Date().toISOString() }),
    );
    const held = await s.call(`/api/sessions/${id}`, { method: "DELETE" });
    expect(held.status).toBe(409);
    expect(await readJson<ErrorBody>(held)).toMatchObject({ error: "session_held" });
    expect((await s.call(`/api/sessions/${id}`)).status).toBe(200);

    other.kill("SIGKILL");
    await eventually(
      async () => (await s.call(`/api/sessions/${id}`, { method: "DELETE" })).status === 204,
      "the delete once the holder is gone",
    );
    expect((await s.call(`/api/sessions/${id}`)).status).toBe(404);
  });

  it("exports the trace as the CLI writes it and imports it as the caller's session, under a new id when taken", async () => {
    const s = await sessionServer([{ text: "Exported answer." }]);
    const id = await s.createSession();
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Explain the build\nin detail" } });
    await waitForEnvelope(stream, "task_end");

    const exported = await s.call(`/api/sessions/${id}/export`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
    expect(exported.headers.get("content-disposition")).toBe(`attachment; filename="${id}.jsonl"`);
    const text = await exported.text();
    const lines = text.trimEnd().split("\n");
    expect(JSON.parse(lines[0])).toMatchObject({ type: "session_meta", payload: { session_id: id } });

    // Another user may not export it, and gets the answer of a missing session.
    const member = await memberSession(s.server, s.cookie, "bob");
    expect((await s.call(`/api/sessions/${id}/export`, { cookie: member })).status).toBe(404);

    // The member imports it: the id is taken on this server, so the session gets a new one.
    const imported = await s.call("/api/sessions/import", { cookie: member, json: { trace: text } });
    expect(imported.status).toBe(201);
    const body = await readJson<{
      session: ListedSession & { user_id: string; approval_mode: string };
      original_id: string;
    }>(imported);
    expect(body.original_id).toBe(id);
    expect(body.session.id).not.toBe(id);
    expect(body.session).toMatchObject({
      title: "Explain the build",
      approval_mode: "always-ask",
      model_id: "fake-model",
    });
    const mine = await readJson<{ sessions: ListedSession[] }>(
      await s.call("/api/sessions", { cookie: member }),
    );
    expect(mine.sessions.map((row) => row.id)).toEqual([body.session.id]);
    // Its trace is the export's, with the new id in its session_meta.
    const again = await (await s.call(`/api/sessions/${body.session.id}/export`, { cookie: member })).text();
    const againLines = again.trimEnd().split("\n");
    expect(againLines.length).toBe(lines.length);
    expect(JSON.parse(againLines[0]).payload.session_id).toBe(body.session.id);
    expect(againLines.slice(1)).toEqual(lines.slice(1));

    // A deleted session's export imports under its own id again.
    expect((await s.call(`/api/sessions/${id}`, { method: "DELETE" })).status).toBe(204);
    const back = await readJson<{ session: { id: string } }>(
      await s.call("/api/sessions/import", { json: { trace: text, title: "Restored" } }),
    );
    expect(back.session.id).toBe(id);
    expect(
      (await readJson<{ session: { title: string } }>(await s.call(`/api/sessions/${id}`))).session.title,
    ).toBe("Restored");
  });

  it("refuses an import that is not an export, names a workspace outside the roots, or is too large", async () => {
    const s = await sessionServer([]);
    const id = await s.createSession();
    const text = await (await s.call(`/api/sessions/${id}/export`)).text();

    const garbage = await s.call("/api/sessions/import", { json: { trace: "not json\n" } });
    expect(garbage.status).toBe(400);
    expect(await readJson<ErrorBody>(garbage)).toMatchObject({ error: "invalid_import" });
    const noMeta = await s.call("/api/sessions/import", {
      json: { trace: text.split("\n").slice(1).join("\n") },
    });
    expect(noMeta.status).toBe(400);

    const [meta, ...rest] = text.split("\n");
    const moved = JSON.parse(meta);
    moved.payload.workspace = "/etc";
    moved.payload.session_id = "elsewhere-1";
    const outside = await s.call("/api/sessions/import", {
      json: { trace: [JSON.stringify(moved), ...rest].join("\n") },
    });
    expect(outside.status).toBe(400);
    expect(await readJson<ErrorBody>(outside)).toMatchObject({ error: "invalid_workspace" });
    // Nothing of the refused import stays behind.
    expect((await s.call("/api/sessions/elsewhere-1")).status).toBe(404);
    const reimport = await s.call("/api/sessions/import", {
      json: {
        trace: [
          JSON.stringify({ ...moved, payload: { ...moved.payload, workspace: s.workspace } }),
          ...rest,
        ].join("\n"),
      },
    });
    expect(reimport.status).toBe(201);
    expect((await readJson<{ session: { id: string } }>(reimport)).session.id).toBe("elsewhere-1");

    const badAgent = {
      ...moved,
      payload: { ...moved.payload, workspace: s.workspace, session_id: "agent-2", agent_id: "../x" },
    };
    const agentRefused = await s.call("/api/sessions/import", {
      json: { trace: [JSON.stringify(badAgent), ...rest].join("\n") },
    });
    expect(agentRefused.status).toBe(400);
    expect(await readJson<ErrorBody>(agentRefused)).toMatchObject({ error: "invalid_import" });
    expect((await s.call("/api/sessions/agent-2")).status).toBe(404);

    const huge = await s.call("/api/sessions/import", { json: { trace: "x".repeat(33 * 1024 * 1024) } });
    expect(huge.status).toBe(413);
  });

  it("offers the configured models and the workspace roots, never a model's key", async () => {
    const s = await sessionServer([]);
    const models = await s.call("/api/models");
    const body = await readJson<{ models: { ref: string }[]; default_model: string }>(models);
    expect(body).toEqual({ models: [{ ref: MODEL, vision: false }], default_model: MODEL });
    const roots = await readJson<{ roots: string[] }>(await s.call("/api/workspace/roots"));
    expect(roots.roots).toEqual([join(s.workspace, "..")]);
  });
});

describe("the folder picker", () => {
  it("lists sub-folders inside the roots only: no files, no links out, no hidden ones unless asked, capped", async () => {
    const s = await sessionServer([]);
    const root = join(s.workspace, "..");
    await mkdir(join(s.workspace, "src", "lib"), { recursive: true });
    await mkdir(join(s.workspace, ".git"));
    await writeFile(join(s.workspace, "README.md"), "hi\n");
    const outsideDir = join(s.dataRoot, "..", "outside-folder");
    await mkdir(outsideDir, { recursive: true });
    await symlink(outsideDir, join(s.workspace, "link-out"));
    await symlink(join(s.workspace, "src"), join(s.workspace, "link-in"));
    const list = async (path: string, hidden = false) =>
      s.call(`/api/workspace/folders?path=${encodeURIComponent(path)}${hidden ? "&hidden=true" : ""}`);

    const top = await readJson<{ path: string; parent: string | null; folders: { name: string }[] }>(
      await list(root),
    );
    expect(top).toMatchObject({ path: root, root, parent: null, truncated: false });
    expect(top.folders.map((f) => f.name)).toEqual(["project"]);
    const project = await readJson<{ parent: string; folders: { name: string; path: string }[] }>(
      await list(s.workspace),
    );
    expect(project.parent).toBe(root);
    expect(project.folders.map((f) => f.name)).toEqual(["link-in", "src"]);
    expect(project.folders[1].path).toBe(join(s.workspace, "src"));
    const hidden = await readJson<{ folders: { name: string }[] }>(await list(s.workspace, true));
    expect(hidden.folders.map((f) => f.name)).toEqual([".git", "link-in", "src"]);

    for (const path of [
      outsideDir,
      `${s.workspace}/../..`,
      join(s.workspace, "link-out"),
      join(s.workspace, "README.md"),
      join(s.workspace, "missing"),
      "/",
      s.dataRoot,
    ]) {
      const refused = await list(path);
      expect(refused.status, path).toBe(400);
      expect(await readJson<ErrorBody>(refused), path).toMatchObject({ error: "invalid_workspace" });
    }
    expect((await s.call("/api/workspace/folders?path=relative/path")).status).toBe(400);

    // Another user sees the same roots (they are the server's), and no listing outside them.
    const member = await memberSession(s.server, s.cookie, "carol");
    expect(
      (await s.call(`/api/workspace/folders?path=${encodeURIComponent("/etc")}`, { cookie: member })).status,
    ).toBe(400);

    const many = join(s.workspace, "many");
    await mkdir(many);
    await Promise.all(
      Array.from({ length: 501 }, (_, i) => mkdir(join(many, `d${String(i).padStart(3, "0")}`))),
    );
    const capped = await readJson<{ folders: unknown[]; truncated: boolean }>(await list(many));
    expect(capped.folders.length).toBe(500);
    expect(capped.truncated).toBe(true);
  });
});
