import { describe, expect, it } from "vitest";
import { IMAGE_MAX_BYTES } from "../../src/environment/limits.js";
import { mapCallResult } from "../../src/mcp/call-result.js";
import type { McpServerConfig } from "../../src/mcp/connection.js";
import { mcpToolPermission } from "../../src/mcp/mcp-tool.js";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const vision = { modelHasVision: true };

describe("MCP call results", () => {
  it("join text blocks line by line and turn images into data URLs", () => {
    const mapped = mapCallResult(
      {
        content: [
          { type: "text", text: "one" },
          { type: "image", data: PNG, mimeType: "image/png" },
          { type: "text", text: "two" },
        ],
      },
      vision,
    );
    expect(mapped).toEqual({ text: "one\ntwo", images: [`data:image/png;base64,${PNG}`], failed: false });
  });

  it("label an image by its bytes, and leave out what the model cannot take with a note", () => {
    expect(
      mapCallResult({ content: [{ type: "image", data: PNG, mimeType: "image/jpeg" }] }, vision).images,
    ).toEqual([`data:image/png;base64,${PNG}`]);
    const svg = Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>").toString("base64");
    expect(
      mapCallResult({ content: [{ type: "image", data: svg, mimeType: "image/svg+xml" }] }, vision),
    ).toEqual({
      text: "[image (image/svg+xml) left out: only png, jpeg, gif and webp images can be sent to the model]",
      images: [],
      failed: false,
    });
    const huge = "A".repeat(Math.ceil((IMAGE_MAX_BYTES + 3) / 3) * 4);
    expect(
      mapCallResult({ content: [{ type: "image", data: huge, mimeType: "image/png" }] }, vision).text,
    ).toMatch(/^\[image \(image\/png, \d+ bytes\) left out: larger than 5242880 bytes\]$/);
    expect(
      mapCallResult({ content: [{ type: "audio", data: "AAAA", mimeType: "audio/wav" }] }, vision).text,
    ).toBe("[audio (audio/wav, 3 bytes) left out: audio cannot be sent to the model]");
  });

  it("give resources as text, links and binary resources as one-line notes", () => {
    const mapped = mapCallResult(
      {
        content: [
          { type: "resource", resource: { uri: "file:///a.txt", text: "inside a" } },
          {
            type: "resource",
            resource: { uri: "file:///b.bin", blob: "AAAA", mimeType: "application/octet-stream" },
          },
          { type: "resource_link", uri: "https://example.test/doc", name: "doc" },
        ],
      },
      vision,
    );
    expect(mapped.text).toBe(
      [
        "inside a",
        "[resource file:///b.bin (application/octet-stream): 3 bytes of binary content left out]",
        "[resource: https://example.test/doc (doc)]",
      ].join("\n"),
    );
  });

  it("give structured content as JSON when the server sent no text, and isError as failed", () => {
    expect(mapCallResult({ content: [], structuredContent: { n: 1 } }, vision).text).toBe('{\n  "n": 1\n}');
    // The server's own text version wins over a second copy.
    expect(
      mapCallResult({ content: [{ type: "text", text: '{"n":1}' }], structuredContent: { n: 1 } }, vision)
        .text,
    ).toBe('{"n":1}');
    expect(mapCallResult({ content: [{ type: "text", text: "nope" }], isError: true }, vision)).toEqual({
      text: "nope",
      images: [],
      failed: true,
    });
  });
});

describe("MCP tool permissions", () => {
  const config = (permission: "auto" | "r" | "rw"): McpServerConfig => ({
    transport: "stdio",
    command: "x",
    args: [],
    connectTimeoutMs: 1,
    permission,
  });

  it("follow readOnlyHint under auto, and the server's permission otherwise", () => {
    expect(mcpToolPermission({ annotations: { readOnlyHint: true } }, config("auto"))).toBe("r");
    expect(mcpToolPermission({ annotations: { readOnlyHint: false } }, config("auto"))).toBe("rw");
    expect(mcpToolPermission({}, config("auto"))).toBe("rw");
    expect(mcpToolPermission({ annotations: { readOnlyHint: true } }, config("rw"))).toBe("rw");
    expect(mcpToolPermission({}, config("r"))).toBe("r");
  });
});
