import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { memberSession, readJson, request } from "./helpers.js";
import { sessionServer } from "./session-fixture.js";

interface ConfigErrorBody {
  error: string;
  message: string;
  config_errors: { line: number; column: number; path: string; message: string }[];
}

describe("agents", () => {
  it("lists, creates, reads and replaces an agent's system_config.yaml, written 0600", async () => {
    const s = await sessionServer([]);
    const listed = await readJson<{ agents: { id: string }[] }>(await s.call("/api/agents"));
    expect(listed.agents.map((agent) => agent.id)).toEqual(["default"]);

    const created = await s.call("/api/agents", {
      json: { id: "reviewer", yaml: "name: Reviewer\ndescription: Reads code\nmax_turns: 5\n" },
    });
    expect(created.status).toBe(201);
    expect((await s.call("/api/agents", { json: { id: "reviewer" } })).status).toBe(409);
    const agents = await readJson<{ agents: { id: string; name?: string }[] }>(await s.call("/api/agents"));
    expect(agents.agents).toEqual([
      { id: "default" },
      { id: "reviewer", name: "Reviewer", description: "Reads code" },
    ]);

    const replaced = await s.call("/api/agents/reviewer/config", {
      method: "PUT",
      json: { yaml: "name: Strict reviewer\nmax_turns: 3\napproval:\n  mode: always-ask\n" },
    });
    expect(replaced.status).toBe(200);
    const file = join(s.dataRoot, "agents", "reviewer", "system_config.yaml");
    expect(await readFile(file, "utf8")).toContain("Strict reviewer");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const read = await readJson<{ yaml: string }>(await s.call("/api/agents/reviewer/config"));
    expect(read.yaml).toContain("approval:\n  mode: always-ask");
    // A session of this agent starts in the agent's approval mode.
    const id = await s.createSession({ agent_id: "reviewer" });
    expect(await readJson(await s.call(`/api/sessions/${id}`))).toMatchObject({
      session: { agent_id: "reviewer", approval_mode: "always-ask" },
    });
    expect((await s.call("/api/agents/ghost/config", { method: "PUT", json: { yaml: "{}" } })).status).toBe(
      404,
    );
    expect((await s.call("/api/agents/ghost/config")).status).toBe(404);
  });

  it("answers 400 with line and column when the replacement is invalid, and keeps the old file", async () => {
    const s = await sessionServer([]);
    await s.call("/api/agents", { json: { id: "writer", yaml: "name: Writer\n" } });
    const file = join(s.dataRoot, "agents", "writer", "system_config.yaml");

    const broken = await s.call("/api/agents/writer/config", {
      method: "PUT",
      json: { yaml: "name: Writer\nmodel:\n  thinking_level: [unclosed\n" },
    });
    expect(broken.status).toBe(400);
    const brokenBody = await readJson<ConfigErrorBody>(broken);
    expect(brokenBody.error).toBe("invalid_config");
    expect(brokenBody.config_errors[0].line).toBeGreaterThan(0);
    expect(brokenBody.message).toMatch(/^system_config\.yaml:\d+:\d+: /);

    const wrongType = await s.call("/api/agents/writer/config", {
      method: "PUT",
      json: { yaml: "name: Writer\nmax_turns: many\nunknown_key: 1\n" },
    });
    expect(wrongType.status).toBe(400);
    const body = await readJson<ConfigErrorBody>(wrongType);
    expect(body.config_errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ line: 2, column: 12, path: "max_turns" }),
        expect.objectContaining({ line: 3, path: expect.stringContaining("unknown_key") }),
      ]),
    );
    expect(body.message).toContain("system_config.yaml:2:12: max_turns:");
    expect(await readFile(file, "utf8")).toBe("name: Writer\n");
  });

  it("lets members list agents but not read or write their files", async () => {
    const s = await sessionServer([]);
    const member = await memberSession(s.server, s.cookie, "bob");
    expect((await request(s.server.url, "/api/agents", { cookie: member })).status).toBe(200);
    expect((await request(s.server.url, "/api/agents/default/config", { cookie: member })).status).toBe(403);
    expect(
      (
        await request(s.server.url, "/api/agents/default/config", {
          cookie: member,
          method: "PUT",
          json: { yaml: "" },
        })
      ).status,
    ).toBe(403);
    expect((await request(s.server.url, "/api/agents", { cookie: member, json: { id: "x" } })).status).toBe(
      403,
    );
  });
});
