import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { extendedEnvironment, runCall, type TempDirs, workspace } from "./support.js";

// A real HTTP server on 127.0.0.1 (port 0) serving each case by path.

let server: Server;
let base: string;
const hanging = new Set<import("node:http").ServerResponse>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const send = (status: number, type: string, body: string | Buffer) => {
      res.writeHead(status, { "content-type": type });
      res.end(body);
    };
    switch (req.url) {
      case "/page":
        return send(
          200,
          "text/html; charset=utf-8",
          '<!doctype html><html><head><title>T</title><style>p{color:red}</style><script>var secret = 1;</script></head><body><h1>Penguins</h1><p>They <b>swim</b> well.</p><a href="https://example.org/more">more</a><img src="x.png" alt="pic"></body></html>',
        );
      case "/data.json":
        return send(200, "application/json", '{"ok":true}');
      case "/missing":
        return send(404, "text/plain", "no such page");
      case "/broken":
        return send(503, "text/html", "<p>try later</p>");
      case "/image.png":
        return send(200, "image/png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
      case "/doc.pdf":
        return send(200, "application/pdf", "%PDF-1.7");
      case "/untyped-binary":
        res.writeHead(200, {});
        return res.end(Buffer.from([1, 2, 0, 3]));
      case "/big":
        return send(200, "text/plain", "x".repeat(50_000));
      case "/latin1":
        return send(200, "text/plain; charset=iso-8859-1", Buffer.from([0x63, 0x61, 0x66, 0xe9]));
      case "/redirect":
        res.writeHead(302, { location: "/data.json" });
        return res.end();
      case "/slow":
        hanging.add(res);
        res.writeHead(200, { "content-type": "text/plain" });
        res.write("partial");
        return;
      default:
        return send(500, "text/plain", "unexpected path");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of hanging) res.destroy();
  await new Promise((resolve) => server.close(resolve));
});

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await workspace();
});
afterEach(async () => {
  await dirs.cleanup();
});

async function fetchUrl(url: string, limits: { maxBytes?: number; timeoutMs?: number } = {}) {
  const env = extendedEnvironment(dirs, { limits: { web_fetch: limits } });
  return (await runCall(env, "web_fetch", { url })).complete;
}

describe("web_fetch", () => {
  it("returns HTML as readable text: no tags, scripts, styles or images; links keep their URL", async () => {
    const out = await fetchUrl(`${base}/page`);
    expect(out.stop_reason).toBe("completed");
    const [status, type, blank, ...body] = out.output.split("\n");
    expect(status).toBe(`HTTP 200 OK ${base}/page`);
    expect(type).toBe("content-type: text/html; charset=utf-8");
    expect(blank).toBe("");
    const text = body.join("\n");
    expect(text).toContain("PENGUINS");
    expect(text).toContain("They swim well.");
    expect(text).toContain("more [https://example.org/more]");
    expect(text).not.toMatch(/<|secret|color:red|pic/);
  });

  it("returns text bodies as they are, follows redirects and decodes the declared charset", async () => {
    expect((await fetchUrl(`${base}/data.json`)).output).toBe(
      `HTTP 200 OK ${base}/data.json\ncontent-type: application/json\n\n{"ok":true}`,
    );
    const redirected = await fetchUrl(`${base}/redirect`);
    expect(redirected.output).toContain(`HTTP 200 OK ${base}/data.json`);
    expect(redirected.output).toContain(`(redirected from ${base}/redirect)`);
    expect((await fetchUrl(`${base}/latin1`)).output.endsWith("\n\ncafé")).toBe(true);
  });

  it("reports 4xx and 5xx as results with their body, not as failures", async () => {
    const missing = await fetchUrl(`${base}/missing`);
    expect(missing.stop_reason).toBe("completed");
    expect(missing.output).toBe(
      `HTTP 404 Not Found ${base}/missing\ncontent-type: text/plain\n\nno such page`,
    );
    const broken = await fetchUrl(`${base}/broken`);
    expect(broken.stop_reason).toBe("completed");
    expect(broken.output).toContain("HTTP 503 Service Unavailable");
    expect(broken.output).toContain("try later");
  });

  it("refuses images, PDFs and untyped binary content", async () => {
    for (const path of ["/image.png", "/doc.pdf"]) {
      const out = await fetchUrl(`${base}${path}`);
      expect(out.stop_reason).toBe("failed");
      expect(out.output).toContain("web_fetch refuses images, PDFs and other binary content");
    }
    const untyped = await fetchUrl(`${base}/untyped-binary`);
    expect(untyped.stop_reason).toBe("failed");
    expect(untyped.output).toContain("looks binary");
  });

  it("cuts a body at maxBytes and says so", async () => {
    const out = await fetchUrl(`${base}/big`, { maxBytes: 1000 });
    expect(out.output).toContain("(body cut at 1000 bytes)");
    expect(out.output.endsWith(`\n\n${"x".repeat(1000)}`)).toBe(true);
  });

  it("gives up after its time limit", async () => {
    const out = await fetchUrl(`${base}/slow`, { timeoutMs: 300 });
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toBe(`Fetching ${base}/slow took longer than 300 ms; gave up.`);
  });

  it("refuses other schemes and bad URLs, and reports a refused connection", async () => {
    expect((await fetchUrl("file:///etc/passwd")).output).toContain(
      "fetches http and https URLs only, not file:",
    );
    expect((await fetchUrl("not a url")).output).toContain('Not a URL: "not a url"');
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await fetchUrl(`http://127.0.0.1:${port}/`);
    expect(refused.stop_reason).toBe("failed");
    expect(refused.output).toBe(`Fetching http://127.0.0.1:${port}/ failed: ECONNREFUSED.`);
  });
});
