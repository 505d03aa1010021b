import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { extendedEnvironment, runCall, type TempDirs, workspace } from "./support.js";

// What a body is comes from its first bytes too, not only from its declared type: a real HTTP
// server on 127.0.0.1 (port 0) that mislabels its content.

const PNG = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52,
]);
const PDF = Buffer.from("%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n");
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]);

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const send = (status: number, type: string | undefined, body: string | Buffer) => {
      res.writeHead(status, type ? { "content-type": type } : {});
      res.end(body);
    };
    switch (req.url) {
      case "/pdf-as-text":
        return send(200, "text/plain; charset=utf-8", PDF);
      case "/png-untyped":
        return send(200, undefined, PNG);
      case "/jpeg-as-html":
        return send(200, "text/html", JPEG);
      case "/missing-image":
        return send(404, "image/png", PNG);
      case "/missing-pdf-as-text":
        return send(404, "text/plain", PDF);
      case "/broken-untyped":
        return send(500, undefined, Buffer.from([1, 2, 0, 3]));
      case "/pdf-talk":
        return send(200, "text/plain", "%PDF is how a PDF starts; this is text about it.");
      default:
        return send(500, "text/plain", "unexpected path");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await workspace();
});
afterEach(async () => {
  await dirs.cleanup();
});

async function fetchUrl(path: string) {
  const env = extendedEnvironment(dirs);
  return (await runCall(env, "web_fetch", { url: `${base}${path}` })).complete;
}

const REFUSAL = "web_fetch refuses images, PDFs and other binary content";

describe("web_fetch sniffs the first bytes, whatever the declared type", () => {
  it("refuses a PDF served as text/plain, with the same words as a declared binary type", async () => {
    const out = await fetchUrl("/pdf-as-text");
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toBe(
      `${base}/pdf-as-text answered with content that is a PDF (declared: text/plain; charset=utf-8) (HTTP 200), which is not text; ${REFUSAL}. Download it with exec_command (e.g. curl -o) if you need the file.`,
    );
    expect(out.output).not.toContain("Catalog");
  });

  it("refuses a PNG served with no content-type", async () => {
    const out = await fetchUrl("/png-untyped");
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toContain("content that is an image (image/png) (declared: no content-type)");
    expect(out.output).toContain(REFUSAL);
  });

  it("refuses a JPEG served as text/html", async () => {
    const out = await fetchUrl("/jpeg-as-html");
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toContain("an image (image/jpeg)");
    expect(out.output).toContain(REFUSAL);
  });

  it("still returns text that merely mentions %PDF", async () => {
    const out = await fetchUrl("/pdf-talk");
    expect(out.stop_reason).toBe("completed");
    expect(out.output).toContain("this is text about it.");
  });
});

describe("a 4xx or 5xx with a binary body", () => {
  it("is a result that gives the status and says the body is binary and not shown", async () => {
    const out = await fetchUrl("/missing-image");
    expect(out.stop_reason).toBe("completed");
    expect(out.output).toBe(
      `HTTP 404 Not Found ${base}/missing-image\ncontent-type: image/png\n\n(the body is binary: image/png; not shown)`,
    );
  });

  it("is a result too when the binary body is mislabelled or untyped", async () => {
    const mislabelled = await fetchUrl("/missing-pdf-as-text");
    expect(mislabelled.stop_reason).toBe("completed");
    expect(mislabelled.output).toContain("HTTP 404 Not Found");
    expect(mislabelled.output).toContain(
      "(the body is binary: content that is a PDF (declared: text/plain); not shown)",
    );
    expect(mislabelled.output).not.toContain("Catalog");

    const untyped = await fetchUrl("/broken-untyped");
    expect(untyped.stop_reason).toBe("completed");
    expect(untyped.output).toContain("HTTP 500 Internal Server Error");
    expect(untyped.output).toContain(
      "(the body is binary: content without a type that looks binary; not shown)",
    );
  });
});
