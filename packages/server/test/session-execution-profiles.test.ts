import { accessSync, constants } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemConfigFile } from "@penguin/state";
import { describe, expect, it, onTestFinished } from "vitest";
import { readJson, request } from "./helpers.js";
import { execTurn, payloadType, sessionServer, waitForEnvelope } from "./session-fixture.js";

// Execution profiles over HTTP: the list the create form offers (with the profiles that amount
// to the server user's full access flagged), the profile chosen at creation, stored with the
// session and applied to its commands.

const BWRAP_MISSING = !(process.env.PATH ?? "").split(":").some((dir) => {
  try {
    accessSync(join(dir, "bwrap"), constants.X_OK);
    return true;
  } catch {
    return false;
  }
});

interface ProfilesBody {
  profiles: { name: string; kind: string; network: boolean; full_host_access: boolean }[];
  default_profile: string;
}

interface SessionBody {
  session: { id: string; execution_profile: string };
}

describe("GET /api/execution-profiles", () => {
  it("lists the built-in profiles and the agent's own, flagging full host access", async () => {
    const s = await sessionServer([]);
    const file = systemConfigFile(s.dataRoot, "builder");
    await mkdir(join(file, ".."), { recursive: true });
    await writeFile(
      file,
      "exec:\n  profile: online\n  profiles:\n    online: { kind: sandbox, network: true }\n    open: { kind: sandbox, network: true, writable_paths: [/] }\n",
    );
    const defaults = await readJson<ProfilesBody>(await s.call("/api/execution-profiles"));
    expect(defaults).toEqual({
      profiles: [
        { name: "native", kind: "native", network: true, full_host_access: true },
        { name: "sandbox", kind: "sandbox", network: false, full_host_access: false },
      ],
      default_profile: "native",
    });
    const builder = await readJson<ProfilesBody>(await s.call("/api/execution-profiles?agent_id=builder"));
    expect(builder.default_profile).toBe("online");
    expect(builder.profiles.map((p) => [p.name, p.full_host_access])).toEqual([
      ["native", true],
      ["sandbox", false],
      ["online", false],
      ["open", true],
    ]);
  });

  it("refuses a caller without credentials, and names an unknown agent", async () => {
    const s = await sessionServer([]);
    expect((await request(s.server.url, "/api/execution-profiles")).status).toBe(401);
    const unknown = await s.call("/api/execution-profiles?agent_id=nobody");
    expect(unknown.status).toBe(400);
    expect(await readJson<{ error: string; message: string }>(unknown)).toMatchObject({
      error: "invalid_config",
      message: expect.stringContaining("agent nobody"),
    });
  });
});

describe("POST /api/sessions with execution_profile", () => {
  it("stores native when the body names none", async () => {
    const s = await sessionServer([]);
    const id = await s.createSession();
    const body = await readJson<SessionBody>(await s.call(`/api/sessions/${id}`));
    expect(body.session.execution_profile).toBe("native");
  });

  it("refuses an unknown profile with 400, naming the profiles", async () => {
    const s = await sessionServer([]);
    const response = await s.call("/api/sessions", {
      json: { workspace: s.workspace, execution_profile: "jail" },
    });
    expect(response.status).toBe(400);
    expect((await readJson<{ message: string }>(response)).message).toContain(
      'unknown execution profile "jail"; the profiles are: native, sandbox',
    );
  });

  it.skipIf(BWRAP_MISSING)(
    "runs a sandbox session's commands in the sandbox and keeps the profile on the session",
    async () => {
      // A file of the server's machine outside the workspace (the private /tmp hides it).
      const secretDir = await mkdtemp(join(tmpdir(), "penguin-server-secret-"));
      onTestFinished(() => rm(secretDir, { recursive: true, force: true }));
      const secret = join(secretDir, "secret.txt");
      await writeFile(secret, "server secret\n");
      const s = await sessionServer([execTurn(`cat ${secret} || echo hidden`), { text: "done" }]);
      const created = await s.call("/api/sessions", {
        json: { workspace: s.workspace, execution_profile: "sandbox" },
      });
      expect(created.status).toBe(201);
      const { session } = await readJson<SessionBody>(created);
      expect(session.execution_profile).toBe("sandbox");
      const stream = await s.stream(session.id);
      await s.call(`/api/sessions/${session.id}/tasks`, { json: { input: "Read it" } });
      const messages = await waitForEnvelope(stream, "task_end");
      const meta = messages.find((m) => payloadType(m) === "session_meta");
      expect((meta?.payload as { execution_profile?: string } | undefined)?.execution_profile).toBe(
        "sandbox",
      );
      const output = messages.find((m) => payloadType(m) === "tool_call_output")?.payload as {
        output: string;
      };
      expect(output.output).toContain("hidden");
      expect(output.output).not.toContain("server secret");
      const listed = await readJson<{ sessions: { id: string; execution_profile: string }[] }>(
        await s.call("/api/sessions"),
      );
      expect(listed.sessions.find((row) => row.id === session.id)?.execution_profile).toBe("sandbox");
    },
  );
});
