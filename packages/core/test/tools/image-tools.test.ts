import { mkdir, truncate, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { DEFAULT_TOOL_DEFINITIONS, type ToolDefinitionConfig } from "@penguin/state";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { IMAGE_MAX_BYTES } from "../../src/environment/limits.js";
import type { DescribeImageFn } from "../../src/environment/types.js";
import {
  createDescribeImageTool,
  NO_VISION_MODEL_MESSAGE,
} from "../../src/tools/describe-image/describe-image.js";
import { sniffImageType } from "../../src/tools/files/image-source.js";
import { createReadImageTool } from "../../src/tools/read-image/read-image.js";
import { makeEnvironment, runCall, type TempDirs, tempDirs } from "../environment/support.js";

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from("IHDR-rest"),
]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46]);
const GIF = Buffer.from("GIF89a\x01\x00\x01\x00", "latin1");
const WEBP = Buffer.concat([Buffer.from("RIFF"), Buffer.from([0x24, 0, 0, 0]), Buffer.from("WEBPVP8 ")]);

const def = (name: string): ToolDefinitionConfig => DEFAULT_TOOL_DEFINITIONS.find((d) => d.name === name)!;

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await tempDirs();
  await mkdir(dirs.workspaceDir, { recursive: true });
});
afterEach(async () => {
  await dirs.cleanup();
});

// A real HTTP server on 127.0.0.1 for URL sources.
let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    switch (req.url) {
      case "/cat.png":
        res.writeHead(200, { "content-type": "image/png" });
        res.end(PNG);
        return;
      case "/mislabelled.jpg":
        // The header says jpeg, the bytes say webp: the bytes win.
        res.writeHead(200, { "content-type": "image/jpeg" });
        res.end(WEBP);
        return;
      case "/huge-declared":
        res.writeHead(200, { "content-type": "image/png", "content-length": String(IMAGE_MAX_BYTES + 1) });
        res.end();
        return;
      case "/huge-chunked": {
        // No Content-Length: the cap has to hold while streaming.
        res.writeHead(200, { "content-type": "image/png" });
        const chunk = Buffer.alloc(256 * 1024, 1);
        let sent = 0;
        const pump = () => {
          while (sent < IMAGE_MAX_BYTES + chunk.length * 2) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once("drain", pump);
          }
          res.end();
        };
        res.write(PNG);
        pump();
        return;
      }
      case "/slow":
        // Never answers; the call's timeout ends it.
        return;
      default:
        res.writeHead(404, { "content-type": "text/plain" });
        res.end("nope");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function readImage(source: string, overrides: Partial<ToolDefinitionConfig> = {}) {
  const env = makeEnvironment(dirs, [createReadImageTool({ ...def("read_image"), ...overrides })], {
    modelHasVision: true,
  });
  return (await runCall(env, "read_image", { source })).complete;
}

describe("magic-byte detection", () => {
  it("recognises png, jpeg, gif and webp by content and nothing else", () => {
    expect(sniffImageType(PNG)).toBe("image/png");
    expect(sniffImageType(JPEG)).toBe("image/jpeg");
    expect(sniffImageType(GIF)).toBe("image/gif");
    expect(sniffImageType(Buffer.from("GIF87a"))).toBe("image/gif");
    expect(sniffImageType(WEBP)).toBe("image/webp");
    expect(sniffImageType(Buffer.from("RIFF\0\0\0\0WAVE"))).toBeUndefined();
    expect(sniffImageType(Buffer.from("<svg xmlns=...>"))).toBeUndefined();
    expect(sniffImageType(Buffer.alloc(0))).toBeUndefined();
  });
});

describe("read_image", () => {
  it("returns a workspace image as a data URL, typed by its bytes rather than its name", async () => {
    await writeFile(join(dirs.workspaceDir, "photo.png"), JPEG);
    const out = await readImage("photo.png");
    expect(out.stop_reason).toBe("completed");
    expect(out.images).toEqual([`data:image/jpeg;base64,${JPEG.toString("base64")}`]);
    expect(out.output).toBe(
      `Image ${join(dirs.workspaceDir, "photo.png")} (image/jpeg, ${JPEG.length} bytes).`,
    );
  });

  it("reads an absolute path outside the workspace, like an attachment saved in the scratchpad", async () => {
    // On purpose (docs/models.md): attachments of text-only sessions live outside the workspace.
    await mkdir(dirs.scratchpadDir, { recursive: true });
    const outside = join(dirs.scratchpadDir, "attachment.png");
    await writeFile(outside, PNG);
    const out = await readImage(outside);
    expect(out.stop_reason).toBe("completed");
    expect(out.images).toEqual([`data:image/png;base64,${PNG.toString("base64")}`]);
  });

  it("accepts exactly 5 MB and refuses one byte more", async () => {
    const path = join(dirs.workspaceDir, "big.gif");
    await writeFile(path, GIF);
    await truncate(path, IMAGE_MAX_BYTES);
    expect((await readImage("big.gif")).stop_reason).toBe("completed");
    await truncate(path, IMAGE_MAX_BYTES + 1);
    const out = await readImage("big.gif");
    expect(out.stop_reason).toBe("failed");
    expect(out.output).toBe(`${path} is too large: 5.0 MB; images up to 5 MB are supported.`);
    expect(out.images).toBeUndefined();
  });

  it("explains unsupported content, missing files and folders", async () => {
    await writeFile(join(dirs.workspaceDir, "logo.png"), '<?xml version="1.0"?><svg></svg>');
    const svg = await readImage("logo.png");
    expect(svg.stop_reason).toBe("failed");
    expect(svg.output).toContain("is not a supported image (png, jpeg, gif or webp): it looks like an SVG");
    await writeFile(join(dirs.workspaceDir, "notes.txt"), "hello");
    expect((await readImage("notes.txt")).output).toContain("its content is not a recognised image");
    const missing = await readImage("logo.jpg");
    expect(missing.output).toBe(
      `Image not found: ${join(dirs.workspaceDir, "logo.jpg")}. Did you mean ${join(dirs.workspaceDir, "logo.png")}?`,
    );
    expect((await readImage(".")).output).toContain("is a directory");
  });

  it("fetches an http URL", async () => {
    const out = await readImage(`${base}/cat.png`);
    expect(out.stop_reason).toBe("completed");
    expect(out.images).toEqual([`data:image/png;base64,${PNG.toString("base64")}`]);
    const mislabelled = await readImage(`${base}/mislabelled.jpg`);
    expect(mislabelled.images?.[0].startsWith("data:image/webp;base64,")).toBe(true);
  });

  it("reports HTTP errors, oversized bodies (declared or streamed) and unsupported schemes", async () => {
    expect((await readImage(`${base}/missing.png`)).output).toBe(
      `Fetching ${base}/missing.png failed: HTTP 404 Not Found.`,
    );
    expect((await readImage(`${base}/huge-declared`)).output).toContain("is too large: 5.0 MB");
    const chunked = await readImage(`${base}/huge-chunked`);
    expect(chunked.stop_reason).toBe("failed");
    expect(chunked.output).toContain("is too large: more than 5 MB");
    expect((await readImage("ftp://example.com/a.png")).output).toBe(
      'Unsupported image source scheme "ftp:". Give an http(s) URL or a file path.',
    );
  });

  it("a URL that never answers ends with the call's timeout", async () => {
    const out = await readImage(`${base}/slow`, { timeoutMs: 200 });
    expect(out.stop_reason).toBe("timeout");
    expect(out.output).toContain(`Fetching ${base}/slow was aborted.`);
  });
});

describe("describe_image", () => {
  async function describeWith(describeImage: DescribeImageFn | undefined, args: Record<string, unknown>) {
    const env = makeEnvironment(dirs, [createDescribeImageTool(def("describe_image"))], { describeImage });
    return (await runCall(env, "describe_image", args)).complete;
  }

  it("forwards the image and the prompt to the vision model and returns its text", async () => {
    await writeFile(join(dirs.workspaceDir, "chart.webp"), WEBP);
    const seen: { dataUrl: string; mimeType: string; prompt: string }[] = [];
    const vision: DescribeImageFn = async (image, prompt) => {
      seen.push({ ...image, prompt });
      return { ok: true, text: "A bar chart with three bars." };
    };
    const out = await describeWith(vision, { source: "chart.webp", prompt: "What kind of chart?" });
    expect(out.stop_reason).toBe("completed");
    expect(out.output).toBe("A bar chart with three bars.");
    expect(out.images).toBeUndefined();
    expect(seen).toEqual([
      {
        dataUrl: `data:image/webp;base64,${WEBP.toString("base64")}`,
        mimeType: "image/webp",
        prompt: "What kind of chart?",
      },
    ]);
    await describeWith(vision, { source: `${base}/cat.png` });
    expect(seen[1].prompt).toMatch(/^Describe this image in detail/);
  });

  it("fails clearly without a configured vision model, or when the vision model fails", async () => {
    await writeFile(join(dirs.workspaceDir, "a.png"), PNG);
    const none = await describeWith(undefined, { source: "a.png" });
    expect(none.stop_reason).toBe("failed");
    expect(none.output).toBe(NO_VISION_MODEL_MESSAGE);
    const broken = await describeWith(async () => ({ ok: false, error: "HTTP 500 from provider" }), {
      source: "a.png",
    });
    expect(broken.stop_reason).toBe("failed");
    expect(broken.output).toBe(
      `The vision model could not describe ${join(dirs.workspaceDir, "a.png")}: HTTP 500 from provider`,
    );
    const thrown = await describeWith(
      async () => {
        throw new Error("socket hang up");
      },
      { source: "a.png" },
    );
    expect(thrown.output).toContain("socket hang up");
  });
});
