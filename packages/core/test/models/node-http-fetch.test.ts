import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer, Agent as HttpsAgent } from "node:https";
import { createServer as createTcpServer, type Socket } from "node:net";
import { join } from "node:path";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { startFakeLlm } from "@penguin/fake-llm";
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicMessagesModel } from "../../src/models/anthropic-messages.js";
import { connectionFailureKind } from "../../src/models/connection-failure.js";
import { FetchHeaders } from "../../src/models/http/fetch-headers.js";
import { createNodeHttpFetch, MAX_REDIRECTS, nodeHttpFetch } from "../../src/models/http/node-http-fetch.js";
import { createOpenAIChatModel } from "../../src/models/openai-chat.js";
import { createOpenAIResponsesModel } from "../../src/models/openai-responses.js";
import { collect, request } from "./helpers.js";

// The provider fetch against real local servers: what the SDKs rely on from fetch (headers,
// statuses, streamed and decoded bodies, redirects, aborts, broken connections).

type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;

const servers: Array<{ close(): void }> = [];

afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

function listening(server: Server | ReturnType<typeof createTcpServer>, scheme = "http"): Promise<string> {
  servers.push({
    close: () => {
      (server as Server).closeAllConnections?.();
      server.close();
    },
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      if (address === null || typeof address === "string") throw new Error("no port");
      resolve(`${scheme}://127.0.0.1:${address.port}`);
    });
  });
}

/** A server that hands each request, with its whole body, to `handler`; also records requests. */
async function serve(handler: Handler) {
  const seen: Array<{ method: string; url: string; headers: IncomingMessage["headers"]; body: string }> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      seen.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
      handler(request, response, body);
    });
  });
  return { url: await listening(server), seen, server };
}

async function readAll(stream: ReadableStream<Uint8Array> | null): Promise<string> {
  if (!stream) return "";
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

describe("FetchHeaders", () => {
  it("is case-insensitive, joins repeated values, iterates sorted and keeps set-cookie values apart", () => {
    const headers = new FetchHeaders({ "X-B": "1", "x-a": "2" });
    headers.append("X-b", "3");
    headers.append("Set-Cookie", "a=1");
    headers.append("set-cookie", "b=2");
    expect(headers.get("x-B")).toBe("1, 3");
    expect(headers.has("X-A")).toBe(true);
    expect([...headers]).toEqual([
      ["set-cookie", "a=1"],
      ["set-cookie", "b=2"],
      ["x-a", "2"],
      ["x-b", "1, 3"],
    ]);
    expect(headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    headers.set("x-b", "  4 ");
    headers.delete("X-A");
    expect([...headers.keys()]).toEqual(["set-cookie", "set-cookie", "x-b"]);
    expect(headers.get("x-b")).toBe("4");
    expect(headers.get("missing")).toBeNull();
  });

  it("copies Node's own Headers and pairs, and refuses names and values HTTP cannot carry", () => {
    expect([...new FetchHeaders(new Headers({ A: "1" }))]).toEqual([["a", "1"]]);
    expect([...new FetchHeaders([["b", "2"]])]).toEqual([["b", "2"]]);
    expect(new FetchHeaders({ Accept: ["a", "b"] }).get("accept")).toBe("a, b");
    expect(() => new FetchHeaders([["only-a-name"]])).toThrow(/must have a name and a value/);
    expect(() => new FetchHeaders({ "bad name": "x" })).toThrow(/invalid header name/);
    expect(() => new FetchHeaders({ ok: "line\r\nInjected: yes" })).toThrow(/invalid value for header "ok"/);
  });
});

describe("nodeHttpFetch", () => {
  it("sends the method, headers and body, and gives the status, headers and JSON back", async () => {
    const server = await serve((_request, response, body) => {
      response.writeHead(201, "Made", { "Content-Type": "application/json", "X-Request-Id": "r1" });
      response.end(JSON.stringify({ echoed: JSON.parse(body) }));
    });
    const response = await nodeHttpFetch(`${server.url}/v1/things?x=1`, {
      method: "post",
      headers: new Headers({ Authorization: "Bearer k", "Content-Type": "application/json" }),
      body: JSON.stringify({ a: "é" }),
    });
    expect(response).toMatchObject({ status: 201, statusText: "Made", ok: true, redirected: false });
    expect(response.url).toBe(`${server.url}/v1/things?x=1`);
    expect(response.headers.get("x-request-id")).toBe("r1");
    expect(await response.json()).toEqual({ echoed: { a: "é" } });
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toThrow(/already been read/);
    const [sent] = server.seen;
    expect(sent).toMatchObject({ method: "POST", url: "/v1/things?x=1", body: '{"a":"é"}' });
    expect(sent?.headers).toMatchObject({
      authorization: "Bearer k",
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength('{"a":"é"}')),
      accept: "*/*",
      "accept-encoding": "gzip, deflate, br",
    });
  });

  it("clones a response whose body is unread, each copy with the whole body; reads bytes and a blob", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { "Content-Type": "text/plain" }).end("twice");
    });
    const response = await nodeHttpFetch(server.url);
    const copy = response.clone();
    expect(await copy.text()).toBe("twice");
    const blob = await response.blob();
    expect(blob.type).toBe("text/plain");
    expect(await blob.text()).toBe("twice");
    expect(() => response.clone()).toThrow(/has been read/);
    const bytes = await (await nodeHttpFetch(server.url)).arrayBuffer();
    expect(Buffer.from(bytes).toString()).toBe("twice");
  });

  it("gives a body that is not 2xx as it came, and no body for HEAD and 204", async () => {
    const server = await serve((request, response) => {
      if (request.url === "/empty") response.writeHead(204).end();
      else response.writeHead(429, { "Retry-After": "3" }).end("slow down");
    });
    const limited = await nodeHttpFetch(`${server.url}/x`);
    expect(limited).toMatchObject({ status: 429, ok: false });
    expect(limited.headers.get("retry-after")).toBe("3");
    expect(await limited.text()).toBe("slow down");
    expect((await nodeHttpFetch(`${server.url}/empty`)).body).toBeNull();
    const head = await nodeHttpFetch(`${server.url}/x`, { method: "HEAD" });
    expect(head.body).toBeNull();
    expect(await head.text()).toBe("");
  });

  it("streams the body as it arrives, before the server has ended it", async () => {
    let finish: (() => void) | undefined;
    const server = await serve((_request, response) => {
      response.writeHead(200, { "Content-Type": "text/event-stream" });
      response.write("data: first\n\n");
      finish = () => response.end("data: last\n\n");
    });
    const response = await nodeHttpFetch(server.url);
    const reader = response.body?.getReader();
    const first = await reader?.read();
    expect(Buffer.from(first?.value ?? []).toString()).toBe("data: first\n\n");
    finish?.();
    const rest: string[] = [];
    for (let next = await reader?.read(); next && !next.done; next = await reader?.read()) {
      rest.push(Buffer.from(next.value).toString());
    }
    expect(rest.join("")).toBe("data: last\n\n");
  });

  it("holds the server back while the body is not read (the socket is paused, nothing piles up)", async () => {
    const chunk = Buffer.alloc(1 << 20, 97);
    let written = 0;
    let blocked: (() => void) | undefined;
    const isBlocked = new Promise<void>((resolve) => {
      blocked = resolve;
    });
    const server = await serve((_request, response) => {
      response.writeHead(200);
      const pump = () => {
        while (written < 512 * chunk.length) {
          written += chunk.length;
          if (!response.write(chunk)) {
            blocked?.();
            response.once("drain", pump);
            return;
          }
        }
        response.end();
      };
      pump();
    });
    const response = await nodeHttpFetch(server.url);
    await isBlocked;
    await new Promise((resolve) => setTimeout(resolve, 300));
    // A reader that buffered everything would take it all (some 30 MiB in each 100 ms here); a
    // paused socket lets through what the kernel's buffers and one queued chunk hold (4 MiB here).
    expect(written).toBeLessThan(16 * chunk.length);
    await response.body?.cancel();
  });

  it.each([
    ["gzip", gzipSync],
    ["deflate", deflateSync],
    ["br", brotliCompressSync],
  ])("decodes a %s body", async (coding, encode) => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { "Content-Encoding": coding }).end(encode(Buffer.from('{"compressed":true}')));
    });
    expect(await (await nodeHttpFetch(server.url)).json()).toEqual({ compressed: true });
  });

  it("follows a 307 with the method and body, a 303 as a GET without them", async () => {
    const server = await serve((request, response, body) => {
      if (request.url === "/old") response.writeHead(307, { Location: "/new" }).end();
      else if (request.url === "/see-other") response.writeHead(303, { Location: "/new" }).end();
      else response.end(`${request.method} ${body}`);
    });
    const kept = await nodeHttpFetch(`${server.url}/old`, { method: "POST", body: "payload" });
    expect(await kept.text()).toBe("POST payload");
    expect(kept).toMatchObject({ redirected: true, url: `${server.url}/new` });
    const changed = await nodeHttpFetch(`${server.url}/see-other`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(await changed.text()).toBe("GET ");
    expect(server.seen.at(-1)?.headers["content-type"]).toBeUndefined();
  });

  it("drops the credentials when a redirect leaves the origin, keeps them within it", async () => {
    const other = await serve((_request, response) => response.end("other"));
    const server = await serve((request, response) => {
      if (request.url === "/away") response.writeHead(308, { Location: `${other.url}/landing` }).end();
      else if (request.url === "/here") response.writeHead(308, { Location: "/landing" }).end();
      else response.end("same");
    });
    const headers = { Authorization: "Bearer secret", "X-Kept": "yes" };
    await (await nodeHttpFetch(`${server.url}/here`, { headers })).text();
    expect(server.seen.at(-1)?.headers).toMatchObject({ authorization: "Bearer secret", "x-kept": "yes" });
    await (await nodeHttpFetch(`${server.url}/away`, { headers })).text();
    expect(other.seen[0]?.headers.authorization).toBeUndefined();
    expect(other.seen[0]?.headers["x-kept"]).toBe("yes");
  });

  it("gives up after the redirect limit or at a Location that is not a URL, and leaves a redirect alone when asked to", async () => {
    const server = await serve((request, response) => {
      if (request.url === "/bad") {
        response.writeHead(301, { Location: "http://[::1" }).end();
        return;
      }
      const hop = Number(request.url?.slice(1) ?? 0);
      response.writeHead(302, { Location: `/${hop + 1}` }).end();
    });
    const endless = nodeHttpFetch(`${server.url}/0`);
    await expect(endless).rejects.toThrow("fetch failed");
    await expect(endless).rejects.toMatchObject({
      cause: { message: `more than ${MAX_REDIRECTS} redirects` },
    });
    expect(server.seen).toHaveLength(MAX_REDIRECTS + 1);
    await expect(nodeHttpFetch(`${server.url}/bad`)).rejects.toMatchObject({
      message: "fetch failed",
      cause: { message: 'redirected to "http://[::1", which is not a URL' },
    });
    const manual = await nodeHttpFetch(`${server.url}/0`, { redirect: "manual" });
    expect(manual.status).toBe(302);
    expect(manual.headers.get("location")).toBe("/1");
  });

  it("fails a connection to a port where nothing listens as an unreachable server", async () => {
    const server = await serve(() => {});
    server.server.close();
    const failure = await nodeHttpFetch(server.url).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect(failure).toMatchObject({ message: "fetch failed", cause: { code: "ECONNREFUSED" } });
    expect(connectionFailureKind(failure)).toBe("unreachable");
  });

  it("fails a connection that does not open within the connect timeout as an unreachable server", async () => {
    // A TCP server that accepts and never answers the TLS handshake.
    const sockets: Socket[] = [];
    const silent = createTcpServer((socket) => sockets.push(socket));
    const url = (await listening(silent, "https")).toString();
    const fetchWithShortTimeout = createNodeHttpFetch({ connectTimeoutMs: 200 });
    const failure = await fetchWithShortTimeout(url).catch((error: unknown) => error);
    for (const socket of sockets) socket.destroy();
    expect(failure).toMatchObject({
      message: "fetch failed",
      cause: { code: "ETIMEDOUT", syscall: "connect" },
    });
    expect(connectionFailureKind(failure)).toBe("unreachable");
  });

  it("errors the body of a connection the server cuts midway as a dropped connection", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { "Content-Type": "text/event-stream" });
      response.write("data: partial\n\n", () => setTimeout(() => response.socket?.destroy(), 20));
    });
    const response = await nodeHttpFetch(server.url);
    const failure = await readAll(response.body).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: "ECONNRESET" });
    expect(connectionFailureKind(failure)).toBe("dropped");
  });

  it("rejects with the abort when aborted before the response, and errors the body when aborted during it", async () => {
    let closedMidBody: (() => void) | undefined;
    const serverSawClose = new Promise<void>((resolve) => {
      closedMidBody = resolve;
    });
    const server = await serve((request, response) => {
      if (request.url === "/stall") return;
      response.writeHead(200);
      response.write("data: one\n\n");
      response.on("close", () => closedMidBody?.());
    });
    const early = new AbortController();
    setTimeout(() => early.abort(), 50);
    await expect(nodeHttpFetch(`${server.url}/stall`, { signal: early.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
    const late = new AbortController();
    const response = await nodeHttpFetch(server.url, { signal: late.signal });
    const reader = response.body?.getReader();
    await reader?.read();
    late.abort();
    await expect(reader?.read()).rejects.toMatchObject({ name: "AbortError" });
    await serverSawClose;
    const already = new AbortController();
    already.abort();
    await expect(nodeHttpFetch(server.url, { signal: already.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
  });

  it("speaks https with the agent's trusted certificates, and refuses a certificate it does not trust", async () => {
    const fixtures = join(import.meta.dirname, "fixtures", "tls");
    const cert = readFileSync(join(fixtures, "localhost.cert.pem"));
    const key = readFileSync(join(fixtures, "localhost.key.pem"));
    const server = createHttpsServer({ cert, key }, (_request, response) => response.end("secure"));
    const url = await listening(server, "https");
    const trusting = createNodeHttpFetch({ httpsAgent: new HttpsAgent({ ca: cert }) });
    expect(await (await trusting(url)).text()).toBe("secure");
    const untrusted = await nodeHttpFetch(url).catch((error: unknown) => error);
    expect(untrusted).toMatchObject({
      message: "fetch failed",
      cause: { code: "DEPTH_ZERO_SELF_SIGNED_CERT" },
    });
  });

  it("refuses what it does not send: a Request object, form data, a scheme other than http(s)", async () => {
    const server = await serve((_request, response) => response.end());
    await expect(nodeHttpFetch(new Request(server.url))).rejects.toThrow(/takes a URL/);
    await expect(nodeHttpFetch(server.url, { method: "POST", body: new FormData() })).rejects.toThrow(
      /does not send form data/,
    );
    await expect(nodeHttpFetch("ftp://127.0.0.1/file")).rejects.toMatchObject({
      message: "fetch failed",
      cause: { message: expect.stringMatching(/not http: or https:/) },
    });
    expect(server.seen).toHaveLength(0);
  });

  it("sends a streamed body, and the bytes of a typed array", async () => {
    const server = await serve((_request, response, body) => response.end(body));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(Buffer.from("one "));
        controller.enqueue(Buffer.from("two"));
        controller.close();
      },
    });
    const streamed = await nodeHttpFetch(server.url, {
      method: "POST",
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(await streamed.text()).toBe("one two");
    const bytes = new Uint8Array([0, 104, 105, 0]).subarray(1, 3);
    expect(await (await nodeHttpFetch(server.url, { method: "PUT", body: bytes })).text()).toBe("hi");
  });
});

describe("the adapters' requests", () => {
  it("go through the provider fetch, not Node's (which marks each request `sec-fetch-mode: cors`)", async () => {
    const llm = await startFakeLlm({ apiKey: "k" });
    servers.push({ close: () => void llm.close() });
    const connection = { provider: "p", modelId: "m", apiKey: "k" };
    const adapters = [
      createOpenAIChatModel({ ...connection, baseUrl: `${llm.url}/v1` }),
      createOpenAIResponsesModel({ ...connection, baseUrl: `${llm.url}/v1` }),
      createAnthropicMessagesModel({ ...connection, baseUrl: llm.url }),
    ];
    llm.setScript(adapters.map(() => ({ text: "hello" })));
    for (const adapter of adapters) {
      expect((await collect(adapter, request())).outcome.status).toBe("completed");
    }
    expect(llm.requests.map((sent) => sent.protocol)).toEqual([
      "openai-chat",
      "openai-responses",
      "anthropic-messages",
    ]);
    for (const sent of llm.requests) {
      expect(sent.headers["accept-encoding"]).toBe("gzip, deflate, br");
      expect(sent.headers["sec-fetch-mode"]).toBeUndefined();
    }
  });
});
