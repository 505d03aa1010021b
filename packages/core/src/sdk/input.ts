import { randomBytes } from "node:crypto";
import { chmod, copyFile, stat, writeFile } from "node:fs/promises";
import { basename, extname, isAbsolute, join, resolve } from "node:path";
import { type ImageUrlPayload, modelMsg, userText } from "@penguin/protocol";
import { ensurePrivateDir, modelVisiblePath } from "@penguin/state";
import type { ModelMessage } from "../engine/types.js";
import { readRegularFile } from "../tools/files/regular-file.js";

/** What a user sends: text, plus images (paths, http(s) or data URLs) and files (paths). */
export type RunInput = string | { text: string; images?: string[]; files?: string[] };

const MIME_BY_EXTENSION: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};
const EXTENSION_BY_MIME: Record<string, string> = {
  "image/png": ".png",
  "image/jpeg": ".jpg",
  "image/gif": ".gif",
  "image/webp": ".webp",
};
/**
 * The image types a run's input may carry (as a data URL or a file of that type), for front ends
 * that check an image before they pass it on.
 */
export const INPUT_IMAGE_TYPES: readonly string[] = Object.keys(EXTENSION_BY_MIME);
/** Attached images and files are saved here inside the session's scratchpad. */
export const ATTACHMENTS_DIR = "attachments";

/**
 * The user's input as model messages. A vision model gets the images as `image_url` messages;
 * a text-only model gets `[attached image: <path>]` lines it can hand to describe_image: the
 * image is saved to the session's scratchpad first (a pasted data URL, or a copy of a local file,
 * so the session keeps the image as it was sent), and an http(s) URL is passed on as it is, for
 * describe_image to fetch. Files become `[attached file: <path>]` lines naming the file itself:
 * a file the user attaches from the workspace is one the model may be asked to change.
 */
export async function inputMessages(
  input: RunInput,
  options: { workspaceDir: string; scratchpadDir: string; vision: boolean; sender?: "user" | "parent_agent" },
): Promise<ModelMessage[]> {
  const sender = options.sender ?? "user";
  if (typeof input === "string") return [userText(input, { sender })];
  const lines = [input.text];
  const images: ModelMessage[] = [];
  for (const image of input.images ?? []) {
    const isUrl = /^https?:\/\//i.test(image);
    const isData = image.startsWith("data:");
    if (options.vision) {
      const url = isUrl || isData ? image : await dataUrlOf(resolve(options.workspaceDir, image));
      images.push(modelMsg<ImageUrlPayload>({ type: "image_url", role: "user", image_url: url }));
    } else if (isData) {
      lines.push(`[attached image: ${modelVisiblePath(await saveDataUrl(image, options.scratchpadDir))}]`);
    } else if (isUrl) {
      lines.push(`[attached image: ${image}]`);
    } else {
      const saved = await saveImageFile(absolute(options.workspaceDir, image), options.scratchpadDir);
      lines.push(`[attached image: ${modelVisiblePath(saved)}]`);
    }
  }
  for (const file of input.files ?? []) {
    lines.push(`[attached file: ${modelVisiblePath(absolute(options.workspaceDir, file))}]`);
  }
  return [userText(lines.join("\n"), { sender }), ...images];
}

function absolute(base: string, path: string): string {
  return isAbsolute(path) ? path : resolve(base, path);
}

async function dataUrlOf(path: string): Promise<string> {
  const mime = MIME_BY_EXTENSION[extname(path).toLowerCase()];
  if (!mime) throw new TypeError(`cannot attach ${path}: use a png, jpeg, gif or webp image`);
  const bytes = await readRegularFile(path);
  return `data:${mime};base64,${bytes.toString("base64")}`;
}

/** A new file name in the scratchpad's attachments folder (created 0700), unique per attachment. */
async function attachmentPath(scratchpadDir: string, name: (unique: string) => string): Promise<string> {
  const dir = join(scratchpadDir, ATTACHMENTS_DIR);
  await ensurePrivateDir(dir);
  return join(dir, name(randomBytes(4).toString("hex")));
}

/** A copy of a local image in the scratchpad's attachments folder (0600), named after the original. */
async function saveImageFile(path: string, scratchpadDir: string): Promise<string> {
  let isFile = false;
  try {
    isFile = (await stat(path)).isFile();
  } catch {
    isFile = false;
  }
  if (!isFile) throw new TypeError(`cannot attach ${path}: there is no such file`);
  const file = await attachmentPath(scratchpadDir, (unique) => `${unique}-${basename(path)}`);
  await copyFile(path, file);
  await chmod(file, 0o600);
  return file;
}

async function saveDataUrl(dataUrl: string, scratchpadDir: string): Promise<string> {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(dataUrl);
  if (!match) throw new TypeError("an attached image data URL must be base64 (data:<mime>;base64,...)");
  const extension = EXTENSION_BY_MIME[match[1]] ?? ".bin";
  const file = await attachmentPath(scratchpadDir, (unique) => `image-${unique}${extension}`);
  await writeFile(file, Buffer.from(match[2], "base64"), { mode: 0o600 });
  return file;
}
