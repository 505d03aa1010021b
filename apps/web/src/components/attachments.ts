/**
 * Files attached to a message in the browser, as the CLI's `--attach` gives them to the model:
 * an image as an image (a `data:` URL the server takes with the task), a text file as its content
 * after the message, under its name. The server cannot read the person's disk, so a file that is
 * neither (a binary, an archive) is refused with the reason. Limits are the server's.
 */

/** "Images: at most 8 per task, each a URL of at most 900,000 characters" (the task route's limits). */
export const MAX_IMAGES = 8;
export const MAX_IMAGE_URL_CHARS = 900_000;
/** The task's input holds at most 512 KiB of text: the message and every attached text file. */
export const MAX_INPUT_CHARS = 512 * 1024;

const IMAGE_TYPES = /^image\/(?:png|jpeg|gif|webp)$/;

export type Attachment =
  | { name: string; kind: "image"; url: string }
  | { name: string; kind: "text"; text: string };

function dataUrlOf(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error(`cannot read ${file.name}`));
    reader.readAsDataURL(file);
  });
}

/** One file as an attachment, or why it cannot be one. */
export async function readAttachment(file: File): Promise<Attachment | { refused: string }> {
  if (IMAGE_TYPES.test(file.type)) {
    const url = await dataUrlOf(file);
    if (url.length > MAX_IMAGE_URL_CHARS) {
      return { refused: `${file.name} is too large to send as an image (at most about 650 KB)` };
    }
    return { name: file.name, kind: "image", url };
  }
  if (file.size > MAX_INPUT_CHARS)
    return { refused: `${file.name} is larger than a message may be (512 KiB)` };
  const text = await file.text();
  // A NUL byte, or text that did not decode: not a file the model can read as text.
  if (text.includes("\u0000") || text.includes("\uFFFD")) {
    return { refused: `${file.name} is not a text file or an image (PNG, JPEG, GIF, WebP)` };
  }
  return { name: file.name, kind: "text", text };
}

/** The task's input: the message, then each text file under its name, fenced. */
export function inputWithAttachments(message: string, attachments: readonly Attachment[]): string {
  const files = attachments.flatMap((attachment) =>
    attachment.kind === "text"
      ? [`Attached file ${attachment.name}:\n\`\`\`\`\n${attachment.text.replace(/\n$/, "")}\n\`\`\`\``]
      : [],
  );
  return [message, ...files].join("\n\n");
}

export function imagesOf(attachments: readonly Attachment[]): string[] {
  return attachments.flatMap((attachment) => (attachment.kind === "image" ? [attachment.url] : []));
}

/** Why these attachments cannot go with one message, if they cannot. */
export function attachmentProblem(message: string, attachments: readonly Attachment[]): string | undefined {
  if (imagesOf(attachments).length > MAX_IMAGES) return `at most ${MAX_IMAGES} images go with one message`;
  if (inputWithAttachments(message, attachments).length > MAX_INPUT_CHARS) {
    return "the message and its text files are larger than 512 KiB";
  }
  return undefined;
}
