import { expect, it } from "vitest";
import { adminSession, readJson, request, startTestServer } from "./helpers.js";

interface Operation {
  parameters?: { name: string; in: string; required: boolean }[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
}

it("documents the session, approval, stream, agent and usage routes with their parameters and errors", async () => {
  const server = await startTestServer();
  const cookie = await adminSession(server);
  const document = await readJson<{ paths: Record<string, Record<string, Operation>> }>(
    await request(server.url, "/api/openapi.json", { cookie }),
  );
  const { paths } = document;
  expect(Object.keys(paths["/api/sessions"]).sort()).toEqual(["get", "post"]);
  expect(paths["/api/sessions"].get.parameters).toEqual([
    expect.objectContaining({ name: "all", in: "query", required: false }),
  ]);
  expect(Object.keys(paths["/api/sessions/{id}"]).sort()).toEqual(["delete", "get", "patch"]);
  const decide = paths["/api/sessions/{id}/approvals/{toolCallId}"].post;
  expect(decide.parameters?.map((p) => p.name)).toEqual(["id", "toolCallId"]);
  expect(Object.keys(decide.responses).sort()).toEqual([
    "200",
    "400",
    "401",
    "403",
    "404",
    "409",
    "413",
    "415",
    "421",
    "500",
  ]);
  expect(Object.keys(paths["/api/sessions/{id}/tasks"].post.responses)).toContain("202");
  expect(Object.keys(paths["/api/sessions/{id}/tasks"].post.responses)).toContain("409");
  for (const path of [
    "/api/sessions/{id}/steer",
    "/api/sessions/{id}/compact",
    "/api/sessions/{id}/abort",
    "/api/sessions/{id}/approvals",
    "/api/sessions/{id}/approvals/audit",
    "/api/sessions/{id}/messages",
    "/api/sessions/{id}/trace",
    "/api/sessions/{id}/processes",
    "/api/sessions/{id}/processes/{processId}",
    "/api/sessions/{id}/stream",
    "/api/events",
    "/api/usage",
    "/api/agents",
    "/api/agents/{id}/config",
  ]) {
    expect(paths[path], path).toBeDefined();
  }
  expect(Object.keys(paths["/api/agents/{id}/config"]).sort()).toEqual(["get", "put"]);
});
