import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { OmniMessage } from "@penguin/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ATTACHMENTS_DIR, inputMessages } from "../../src/sdk/input.js";

// What a user attaches (images as paths, http(s) or data URLs; files as paths) as the model gets it.

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from("rest"),
]);
const PNG_DATA_URL = `data:image/png;base64,${PNG.toString("base64")}`;

let root: string;
let workspaceDir: string;
let scratchpadDir: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "penguin-input-"));
  workspaceDir = join(root, "ws");
  scratchpadDir = join(root, "scratchpad");
  await mkdir(workspaceDir, { recursive: true });
  await writeFile(join(workspaceDir, "shot.png"), PNG);
  await writeFile(join(workspaceDir, "notes.md"), "# notes\n");
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const textOf = (messages: OmniMessage[]) => ((messages[0] as OmniMessage).payload as { text: string }).text;
/** The paths of `[attached image: …]` lines. */
const attachedImages = (text: string) => [...text.matchAll(/\[attached image: ([^\]]+)\]/g)].map((m) => m[1]);

describe("attachments of a run's input", () => {
  it("a vision model gets images as image content: a local file as a data URL, a URL as it is", async () => {
    const messages = await inputMessages(
      { text: "Look.", images: ["shot.png", "https://example.com/cat.png"] },
      { workspaceDir, scratchpadDir, vision: true },
    );
    expect(textOf(messages)).toBe("Look.");
    expect(messages.slice(1).map((m) => m.payload)).toEqual([
      { type: "image_url", role: "user", image_url: PNG_DATA_URL },
      { type: "image_url", role: "user", image_url: "https://example.com/cat.png" },
    ]);
  });

  it("a text-only model gets lines naming copies saved in the scratchpad (0600), and URLs as they are", async () => {
    const messages = await inputMessages(
      { text: "Describe these.", images: ["shot.png", PNG_DATA_URL, "https://example.com/cat.png"] },
      { workspaceDir, scratchpadDir, vision: false },
    );
    expect(messages).toHaveLength(1);
    const [copy, pasted, url] = attachedImages(textOf(messages));
    expect(url).toBe("https://example.com/cat.png");
    for (const saved of [copy, pasted]) {
      expect(saved?.startsWith(join(scratchpadDir, ATTACHMENTS_DIR))).toBe(true);
      expect(await readFile(saved as string)).toEqual(PNG);
      expect((await stat(saved as string)).mode & 0o777).toBe(0o600);
    }
    // The copy keeps the original's name, so the model can tell attachments apart.
    expect(copy).toMatch(/-shot\.png$/);
    // The session keeps the image as it was sent, whatever happens to the original later.
    await writeFile(join(workspaceDir, "shot.png"), "changed");
    expect(await readFile(copy as string)).toEqual(PNG);
  });

  it("files are named where they are (the model may be asked to change them), for any model", async () => {
    for (const vision of [true, false]) {
      const messages = await inputMessages(
        { text: "Read this.", files: ["notes.md"] },
        { workspaceDir, scratchpadDir, vision },
      );
      expect(textOf(messages)).toBe(`Read this.\n[attached file: ${join(workspaceDir, "notes.md")}]`);
    }
  });

  it("a missing image and an image a vision model cannot take fail with a clear message", async () => {
    await expect(
      inputMessages({ text: "x", images: ["gone.png"] }, { workspaceDir, scratchpadDir, vision: false }),
    ).rejects.toThrow(`cannot attach ${join(workspaceDir, "gone.png")}: there is no such file`);
    await expect(
      inputMessages({ text: "x", images: ["notes.md"] }, { workspaceDir, scratchpadDir, vision: true }),
    ).rejects.toThrow("use a png, jpeg, gif or webp image");
    await expect(
      inputMessages(
        { text: "x", images: ["data:image/png,notbase64"] },
        { workspaceDir, scratchpadDir, vision: false },
      ),
    ).rejects.toThrow("must be base64");
  });
});
