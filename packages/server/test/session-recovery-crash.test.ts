import { createHash } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { startFakeLlm } from "@penguin/fake-llm";
import { saveProjectConfig } from "@penguin/state";
import { ProjectConfigSchema } from "@penguin/state/schemas";
import { readSession } from "@penguin/trace";
import { afterEach, describe, expect, it } from "vitest";
import {
  ADMIN_PASSWORD,
  login,
  readJson,
  request,
  startTestServer,
  tempDataRoot,
  testDatabaseFor,
} from "./helpers.js";
import { spawnServerProcess } from "./server-process.js";

// A real crash: a server process runs a task whose write_file writes its file, and is killed with
// SIGKILL before the call's result reaches the trace. A new server on the same data root shows the
// call as uncertain with Penguin's check (the file has the hash the call would give: applied,
// suggests accept), and records the user's decision through the session reopened from its trace.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
});

interface Started {
  url: string;
  password: string;
}

async function startCrashingServer(dataRoot: string, workspaceRoot: string) {
  // The database the test's second server opens on this data root (none: the root's SQLite file).
  const database = await testDatabaseFor(dataRoot);
  const server = await spawnServerProcess<Started>("crashing-server.mjs", [
    dataRoot,
    workspaceRoot,
    ...(database ? [database] : []),
  ]);
  closers.push(server.kill);
  return { ...server.info, exited: server.exited, stderr: server.stderr };
}

describe("recovery after a server killed during write_file", () => {
  it("shows the call as uncertain with Penguin's check and records the user's decision", async () => {
    const dataRoot = await tempDataRoot();
    const workspaceRoot = join(await tempDataRoot(), "workspaces");
    const workspace = join(workspaceRoot, "project");
    await mkdir(workspace, { recursive: true });
    const content = "written before the crash\n";
    const llm = await startFakeLlm({
      script: [
        {
          tool_calls: [
            { id: "call_write", name: "write_file", arguments: { file_path: "out.txt", content } },
          ],
        },
        { text: "Written." },
      ],
      apiKey: "sk-test",
    });
    closers.push(() => llm.close());
    await saveProjectConfig(
      dataRoot,
      ProjectConfigSchema.parse({
        default_model: "fake/fake-model",
        models: [
          {
            provider: "fake",
            api: "openai",
            model_id: "fake-model",
            base_url: `${llm.url}/v1`,
            api_key: "sk-test",
            context_window: 100_000,
          },
        ],
      }),
    );

    const crashing = await startCrashingServer(dataRoot, workspaceRoot);
    const first = await login(crashing.url, "admin", crashing.password);
    const changed = await request(crashing.url, "/api/auth/password", {
      cookie: first,
      json: { current_password: crashing.password, new_password: ADMIN_PASSWORD },
    });
    expect(changed.status).toBe(204);
    const created = await request(crashing.url, "/api/sessions", { cookie: first, json: { workspace } });
    expect(created.status).toBe(201);
    const id = (await readJson<{ session: { id: string } }>(created)).session.id;
    const task = await request(crashing.url, `/api/sessions/${id}/tasks`, {
      cookie: first,
      json: { input: "Write out.txt" },
    });
    expect(task.status).toBeLessThan(300);
    expect(await crashing.exited, crashing.stderr()).toBe("SIGKILL");
    expect(await readFile(join(workspace, "out.txt"), "utf8")).toBe(content);

    const server = await startTestServer({ dataRoot, workspaceRoots: [workspaceRoot] });
    const cookie = await login(server.url, "admin", ADMIN_PASSWORD);
    const view = await readJson<{
      uncertain: {
        tool_call_id: string;
        evidence: string;
        suggestion?: string;
        files: { after_sha256: string | null }[];
      }[];
    }>(await request(server.url, `/api/sessions/${id}/recovery`, { cookie }));
    expect(view.uncertain).toEqual([
      expect.objectContaining({
        tool_call_id: "call_write",
        evidence: expect.stringMatching(/^applied: .*out\.txt has the hash the call would give/),
        suggestion: "accept",
        files: [
          expect.objectContaining({ after_sha256: createHash("sha256").update(content).digest("hex") }),
        ],
      }),
    ]);

    const resolved = await request(server.url, `/api/sessions/${id}/recovery/call_write/resolve`, {
      cookie,
      json: { decision: "accept", evidence: "out.txt holds the whole text" },
    });
    expect(resolved.status, await resolved.clone().text()).toBe(200);
    const after = await readJson<{ uncertain: unknown[]; resolved: { tool_call_id: string; by: string }[] }>(
      await request(server.url, `/api/sessions/${id}/recovery`, { cookie }),
    );
    expect(after.uncertain).toEqual([]);
    expect(after.resolved).toEqual([expect.objectContaining({ tool_call_id: "call_write", by: "user" })]);
    const decisions = readSession(server.sessions.location, id)
      .records.map(
        (record) =>
          record.payload as { type?: string; tool_call_id?: string; by?: string; verified?: string },
      )
      .filter((payload) => payload.type === "activity_resolved");
    expect(decisions).toEqual([
      expect.objectContaining({
        tool_call_id: "call_write",
        by: "user",
        verified: expect.stringMatching(/^applied: /),
      }),
    ]);
  });
});
