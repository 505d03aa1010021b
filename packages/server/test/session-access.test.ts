import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type ErrorBody, memberSession, readJson, request } from "./helpers.js";
import { sessionServer, waitForEnvelope } from "./session-fixture.js";

describe("session access and input checks", () => {
  it("gives another user 404 for every route of a session, and lists only the caller's sessions", async () => {
    const s = await sessionServer([{ text: "hi" }]);
    const id = await s.createSession();
    const other = await memberSession(s.server, s.cookie, "mallory");
    const routes: [string, string, unknown?][] = [
      ["GET", `/api/sessions/${id}`],
      ["PATCH", `/api/sessions/${id}`, { title: "mine now" }],
      ["DELETE", `/api/sessions/${id}`],
      ["POST", `/api/sessions/${id}/tasks`, { input: "hello" }],
      ["POST", `/api/sessions/${id}/steer`, { input: "hello" }],
      ["POST", `/api/sessions/${id}/abort`, {}],
      ["GET", `/api/sessions/${id}/approvals`],
      ["POST", `/api/sessions/${id}/approvals/call_1`, { decision: "allow" }],
      ["GET", `/api/sessions/${id}/approvals/audit`],
      ["GET", `/api/sessions/${id}/messages`],
      ["GET", `/api/sessions/${id}/trace`],
      ["GET", `/api/sessions/${id}/processes`],
      ["GET", `/api/sessions/${id}/agents`],
      ["GET", `/api/sessions/${id}/changes`],
      ["POST", `/api/sessions/${id}/revert`, { dry_run: true }],
      ["DELETE", `/api/sessions/${id}/processes/cmd_1`],
      ["GET", `/api/sessions/${id}/stream`],
      ["GET", `/api/sessions/${id}/export`],
    ];
    for (const [method, path, json] of routes) {
      const response = await request(s.server.url, path, { method, cookie: other, json });
      expect(response.status, `${method} ${path}`).toBe(404);
      // The same answer as for an id that does not exist.
      const missing = await request(s.server.url, path.replace(id, "20990101-000000-nosuch"), {
        method,
        cookie: other,
        json,
      });
      expect(await readJson(response), `${method} ${path}`).toEqual(await readJson(missing));
    }
    expect(await readJson(await request(s.server.url, "/api/sessions", { cookie: other }))).toEqual({
      sessions: [],
    });
    // Members may not list everyone's; admins may.
    expect((await request(s.server.url, "/api/sessions?all=true", { cookie: other })).status).toBe(403);
    const mine = await s.createSession({}, other);
    const adminAll = await readJson<{ sessions: { id: string }[] }>(await s.call("/api/sessions?all=true"));
    expect(adminAll.sessions.map((row) => row.id).sort()).toEqual([id, mine].sort());
    const adminOwn = await readJson<{ sessions: { id: string }[] }>(await s.call("/api/sessions"));
    expect(adminOwn.sessions.map((row) => row.id)).toEqual([id]);
    // The session is untouched.
    expect(await readJson(await s.call(`/api/sessions/${id}`))).toMatchObject({ session: { title: "" } });
  });

  it("never trusts a workspace path: relative, missing, a file, outside the roots or escaping through a symlink are 400", async () => {
    const s = await sessionServer([]);
    await mkdir(join(s.workspace, "sub"), { recursive: true });
    await symlink("/tmp", join(s.workspace, "escape"));
    const cases = [
      "project",
      join(s.workspace, "missing"),
      join(s.workspace, "..", "..", ".."),
      "/",
      join(s.workspace, "escape"),
      `${s.workspace}/sub/../../../..`,
    ];
    for (const workspace of cases) {
      const response = await s.call("/api/sessions", { json: { workspace } });
      expect(response.status, workspace).toBe(400);
      // A relative path breaks the documented schema; the rest are checked on the file system.
      const error = workspace.startsWith("/") ? "invalid_workspace" : "invalid_request";
      expect(await readJson<ErrorBody>(response), workspace).toMatchObject({ error });
    }
    const ok = await s.call("/api/sessions", { json: { workspace: `${s.workspace}/sub/..` } });
    expect(ok.status).toBe(201);
    expect(await readJson(ok)).toMatchObject({ session: { workspace: s.workspace } });
  });

  it("rejects path-traversal ids, unknown keys and oversized bodies", async () => {
    const s = await sessionServer([{ text: "hi" }], { maxBodyBytes: 16 * 1024 });
    const id = await s.createSession();
    for (const path of [
      "/api/sessions/..%2F..%2Fetc",
      "/api/sessions/.hidden/trace",
      `/api/sessions/${id}/processes/..%2Fcmd`,
      `/api/sessions/${id}/approvals/a%2Fb`,
    ]) {
      const method = path.includes("approvals") ? "POST" : "GET";
      const response = await s.call(path, {
        method,
        ...(method === "POST" ? { json: { decision: "allow" } } : {}),
      });
      // A path the API serves only with other methods (processes/:processId is DELETE only) is a 405.
      expect([400, 404, 405], path).toContain(response.status);
      if (response.status === 404)
        expect(await readJson(response), path).toMatchObject({ error: "not_found" });
    }
    expect((await s.call("/api/sessions/..%2F..%2Fetc")).status).toBe(400);
    const unknownKey = await s.call(`/api/sessions/${id}/tasks`, { json: { input: "hi", sneaky: true } });
    expect(unknownKey.status).toBe(400);
    const huge = await s.call(`/api/sessions/${id}`, {
      method: "PATCH",
      json: { title: "x".repeat(20 * 1024) },
    });
    expect(huge.status).toBe(413);
    const empty = await s.call(`/api/sessions/${id}/tasks`, { json: { input: "" } });
    expect(empty.status).toBe(400);
    const badImage = await s.call(`/api/sessions/${id}/tasks`, {
      json: { input: "look", images: ["/etc/passwd"] },
    });
    expect(badImage.status).toBe(400);
    expect((await s.call(`/api/sessions/${id}`, { method: "PATCH", json: {} })).status).toBe(400);
    expect(
      (await s.call(`/api/sessions/${id}`, { method: "PATCH", json: { approval_mode: "sometimes" } })).status,
    ).toBe(400);
    // Nothing above started a task.
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "hi" } });
    await waitForEnvelope(stream, "task_end");
    expect(s.llm.requests.filter((r) => r.protocol === "openai-chat")).toHaveLength(1);
  });
});
