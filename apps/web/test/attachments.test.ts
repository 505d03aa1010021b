import { describe, expect, it } from "vitest";
import {
  attachmentProblem,
  imagesOf,
  inputWithAttachments,
  MAX_INPUT_CHARS,
  readAttachment,
} from "../src/components/attachments.js";

describe("attachments", () => {
  it("puts each text file after the message under its name, and keeps images apart", () => {
    const attachments = [
      { name: "a.txt", kind: "text" as const, text: "alpha" },
      { name: "p.png", kind: "image" as const, url: "data:image/png;base64,AAAA" },
    ];
    expect(inputWithAttachments("Read this", attachments)).toBe(
      "Read this\n\nAttached file a.txt:\n````\nalpha\n````",
    );
    expect(imagesOf(attachments)).toEqual(["data:image/png;base64,AAAA"]);
  });

  it("says when a message cannot carry its attachments", () => {
    const image = { name: "p.png", kind: "image" as const, url: "data:image/png;base64,AAAA" };
    expect(attachmentProblem("hi", Array(9).fill(image))).toBe("at most 8 images go with one message");
    const big = { name: "big.txt", kind: "text" as const, text: "x".repeat(MAX_INPUT_CHARS) };
    expect(attachmentProblem("hi", [big])).toContain("larger than 512 KiB");
    expect(attachmentProblem("hi", [image])).toBeUndefined();
  });

  it("reads a text file as text and refuses a binary one", async () => {
    expect(await readAttachment(new File(["hello"], "h.txt", { type: "text/plain" }))).toEqual({
      name: "h.txt",
      kind: "text",
      text: "hello",
    });
    expect(await readAttachment(new File([new Uint8Array([0, 159, 146, 150])], "b.bin"))).toEqual({
      refused: "b.bin is not a text file or an image (PNG, JPEG, GIF, WebP)",
    });
  });
});
