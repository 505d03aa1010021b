import { describe, expect, it } from "vitest";
import {
  ADMIN_PASSWORD,
  adminSession,
  type ErrorBody,
  login,
  readJson,
  request,
  startTestServer,
} from "./helpers.js";

describe("changing a password", () => {
  it("revokes the user's API tokens and other browser sessions, keeping the one that changed it", async () => {
    const server = await startTestServer();
    const cookie = await adminSession(server);
    const other = await login(server.url, "admin", ADMIN_PASSWORD);
    const created = await request(server.url, "/api/tokens", { cookie, json: { name: "scripts" } });
    expect(created.status).toBe(201);
    const { token } = await readJson<{ token: string }>(created);
    expect((await request(server.url, "/api/auth/me", { bearer: token })).status).toBe(200);

    const changed = await request(server.url, "/api/auth/password", {
      cookie,
      json: { current_password: ADMIN_PASSWORD, new_password: "another long password" },
    });
    expect(changed.status).toBe(204);

    const withToken = await request(server.url, "/api/auth/me", { bearer: token });
    expect(withToken.status).toBe(401);
    expect(await readJson<ErrorBody>(withToken)).toMatchObject({ error: "unauthorized" });
    expect((await request(server.url, "/api/auth/me", { cookie: other })).status).toBe(401);
    expect((await request(server.url, "/api/auth/me", { cookie })).status).toBe(200);
    const tokens = await readJson<{ tokens: unknown[] }>(
      await request(server.url, "/api/tokens", { cookie }),
    );
    expect(tokens.tokens).toEqual([]);
  });

  it("with a wrong current password changes nothing and keeps the tokens", async () => {
    const server = await startTestServer();
    const cookie = await adminSession(server);
    const { token } = await readJson<{ token: string }>(
      await request(server.url, "/api/tokens", { cookie, json: { name: "scripts" } }),
    );
    const refused = await request(server.url, "/api/auth/password", {
      cookie,
      json: { current_password: "not the password", new_password: "another long password" },
    });
    expect(refused.status).toBe(403);
    expect((await request(server.url, "/api/auth/me", { bearer: token })).status).toBe(200);
  });
});
