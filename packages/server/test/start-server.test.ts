import { stat } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  defineRoute,
  EventHub,
  SafeIdSchema,
  serverLogFile,
  startServer,
  streamChannel,
} from "../src/index.js";
import { adminSession, request, startTestServer, tempDataRoot } from "./helpers.js";

describe("startServer", () => {
  it("listens on 127.0.0.1 by default and logs to <root>/logs/server.log (0600)", async () => {
    const dataRoot = await tempDataRoot();
    const server = await startTestServer({ dataRoot });
    expect(server.host).toBe("127.0.0.1");
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    expect((await request(server.url, "/api/health")).status).toBe(200);
    await server.close();
    const log = await stat(serverLogFile(dataRoot));
    if (process.platform !== "win32") expect(log.mode & 0o777).toBe(0o600);
  });

  it("fails clearly when the port is taken", async () => {
    const first = await startTestServer();
    await expect(startServer({ port: first.port, dataRoot: await tempDataRoot() })).rejects.toThrow(
      /EADDRINUSE/,
    );
    expect((await request(first.url, "/api/health")).status).toBe(200);
  });

  it("serves added routes behind auth, and close() ends their open live streams", async () => {
    const hub = new EventHub();
    const stream = defineRoute({
      method: "get",
      path: "/api/channels/:id/stream",
      summary: "A live stream of one channel",
      tag: "test",
      access: "user",
      params: z.object({ id: SafeIdSchema }),
      responses: { 200: { description: "text/event-stream" } },
      handle: (c, { params }) => streamChannel(c, hub, params.id),
    });
    const server = await startTestServer({ routes: [stream] });
    expect((await request(server.url, "/api/channels/c1/stream")).status).toBe(401);
    const cookie = await adminSession(server);

    const live = await fetch(`${server.url}/api/channels/c1/stream`, {
      headers: { cookie: `penguin_session=${cookie}` },
    });
    expect(live.status).toBe(200);
    expect(live.headers.get("content-type")).toMatch(/text\/event-stream/);
    const reader = live.body!.getReader();
    while (hub.stats("c1").subscribers < 1) await new Promise((resolve) => setImmediate(resolve));
    hub.publish("c1", { data: "hello" });
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain("data: hello");

    await server.close();
    // The stream ends (or errors) instead of keeping close() or the reader waiting forever.
    await reader.read().then(
      (result) => expect(result.done).toBe(true),
      (error: unknown) => expect(error).toBeInstanceOf(Error),
    );
  });
});
