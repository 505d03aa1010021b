import { describe, expect, it } from "vitest";
import { mapCallResult } from "../../src/mcp/call-result.js";
import { structuredContentText } from "../../src/mcp/structured-content.js";

// Structured content as text: a copy of the content blocks is left out, base64 media never
// reaches the text, everything else is kept as JSON.

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const image = { type: "image" as const, data: PNG, mimeType: "image/png" };

describe("MCP structured content", () => {
  it("is left out when it only repeats the content blocks, in any key order", () => {
    const reordered = { mimeType: "image/png", data: PNG, type: "image" };
    expect(
      structuredContentText({ content: [image], structuredContent: { content: [reordered] } }),
    ).toBeUndefined();
    expect(
      structuredContentText({ content: [image], structuredContent: { items: [image], more: [] } }),
    ).toBeUndefined();
    // Without vision the image is named in a note, and its base64 is nowhere in the text.
    const mapped = mapCallResult(
      { content: [image], structuredContent: { content: [image] } },
      { modelHasVision: false },
    );
    expect(mapped.text).toBe("[image (image/png, 70 bytes) not shown: this model does not read images]");
  });

  it("keeps what it adds to the blocks, without the repeated block", () => {
    const text = structuredContentText({
      content: [image],
      structuredContent: { content: [image], path: "/a.png", size: 70 },
    });
    expect(JSON.parse(text ?? "null")).toEqual({ path: "/a.png", size: 70 });
  });

  it("replaces base64 media it holds on its own (blocks, blobs, data URLs, raw image bytes) with a note", () => {
    const text = structuredContentText({
      content: [],
      structuredContent: {
        thumbnail: { type: "image", data: "AAAA", mimeType: "image/png" },
        sound: { type: "audio", data: "AAAAAAAA", mimeType: "audio/wav" },
        file: { uri: "file:///b.bin", blob: "AAAA" },
        url: `data:image/png;base64,${PNG}`,
        raw: PNG,
        name: "kept as it is",
        count: 2,
      },
    });
    expect(text).not.toContain(PNG.slice(0, 16));
    expect(JSON.parse(text ?? "null")).toEqual({
      thumbnail: { type: "image", data: "[base64 data (3 bytes) left out]", mimeType: "image/png" },
      sound: { type: "audio", data: "[base64 data (6 bytes) left out]", mimeType: "audio/wav" },
      file: { uri: "file:///b.bin", blob: "[base64 data (3 bytes) left out]" },
      url: "[base64 data (70 bytes) left out]",
      raw: "[base64 data (70 bytes) left out]",
      name: "kept as it is",
      count: 2,
    });
  });

  it("keeps ordinary strings that merely look like base64, and leaves out nothing when there are no blocks", () => {
    expect(
      structuredContentText({ content: [], structuredContent: { id: "abcdefghijklmnop", ok: true } }),
    ).toBe('{\n  "id": "abcdefghijklmnop",\n  "ok": true\n}');
    expect(structuredContentText({ content: [], structuredContent: {} })).toBeUndefined();
    expect(
      structuredContentText({ content: [{ type: "text", text: "own text" }], structuredContent: { n: 1 } }),
    ).toBeUndefined();
  });
});
