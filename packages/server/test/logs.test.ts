import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { serverLogFile } from "../src/index.js";
import { adminSession, login, readJson, request, startTestServer, tempDataRoot } from "./helpers.js";

interface LogLine {
  msg: string;
  method?: string;
  path?: string;
  status?: number;
  duration_ms?: number;
  user_id?: string;
}

describe("server logs", () => {
  it("record each request as structured JSON and never a password, cookie or token", async () => {
    const dataRoot = await tempDataRoot();
    const server = await startTestServer({ dataRoot });
    const initialPassword = server.initialAdmin!.password;
    const cookie = await adminSession(server);
    const token = await readJson<{ token: string }>(
      await request(server.url, "/api/tokens", { cookie, json: { name: "ci" } }),
    );
    await request(server.url, "/api/auth/me", { bearer: token.token });
    await request(server.url, "/api/auth/login", {
      json: { username: "admin", password: "a wrong password" },
    });
    await request(server.url, "/api/users", {
      cookie,
      json: { username: "frank", password: "frank's initial password" },
    });
    const secondCookie = await login(server.url, "frank", "frank's initial password");
    await server.close();

    const text = await readFile(serverLogFile(dataRoot), "utf8");
    for (const secret of [
      initialPassword,
      "correct horse battery staple",
      "a wrong password",
      "frank's initial password",
      cookie,
      secondCookie,
      token.token,
      token.token.slice(4, 24),
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text.toLowerCase()).not.toContain("set-cookie");

    const lines = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as LogLine);
    const me = lines.find((line) => line.msg === "request" && line.path === "/api/auth/me");
    expect(me).toMatchObject({ method: "GET", status: 200, user_id: expect.any(String) });
    expect(me!.duration_ms).toEqual(expect.any(Number));
    const failed = lines.find((line) => line.path === "/api/auth/login" && line.status === 401);
    expect(failed).toBeDefined();
    expect(lines.some((line) => line.msg === "login failed")).toBe(true);
  });

  it("redact secrets even when code logs a request's headers or a body", async () => {
    const dataRoot = await tempDataRoot();
    const server = await startTestServer({ dataRoot });
    server.logger.info(
      {
        headers: { authorization: "Bearer pgn_leak", cookie: "penguin_session=leak", "set-cookie": "a=leak" },
        body: { password: "leaky-password", token: "pgn_leak2" },
      },
      "debug dump",
    );
    await server.close();
    const text = await readFile(serverLogFile(dataRoot), "utf8");
    expect(text).toContain("debug dump");
    expect(text).not.toMatch(/leak/);
  });
});
