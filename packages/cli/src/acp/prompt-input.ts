import { fileURLToPath } from "node:url";
import { type ContentBlock, RequestError } from "@agentclientprotocol/sdk";
import { INPUT_IMAGE_TYPES, type RunInput } from "@penguin/core";

// A `session/prompt`'s content blocks as the task's input. `initialize` advertises images and
// embedded context (promptCapabilities), so an editor sends: text; images (the model gets them as
// image inputs); resources it embedded (the file's text, from the editor's buffer); links to
// resources (the model reads those with its tools). Audio is not advertised and is refused.

/** A fence never shorter than this (Markdown's own minimum). */
const MIN_FENCE_LENGTH = 3;

/** A fence longer than any run of backticks in `text`, so the text cannot close it early. */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  return "`".repeat(Math.max(MIN_FENCE_LENGTH, longest + 1));
}

/** An embedded text resource as the model reads it: where it is from, then its text, fenced. */
export function embeddedText(uri: string, text: string): string {
  const fence = fenceFor(text);
  return `Contents of ${uri}:\n${fence}\n${text}${text.endsWith("\n") ? "" : "\n"}${fence}`;
}

/** A link as a short reference: a local file by its path (what the file tools take), else its URI. */
export function linkReference(uri: string, name: string): string {
  if (uri.startsWith("file://")) {
    try {
      return `[file: ${fileURLToPath(uri)}]`;
    } catch {
      // Not a local file URL after all (another host): named by its URI below.
    }
  }
  return name && name !== uri ? `[resource ${name}: ${uri}]` : `[resource: ${uri}]`;
}

/** An image as a data URL; a type core does not take is refused, naming the ones it does. */
function imageUrl(mimeType: string | null | undefined, data: string, what: string): string {
  const type = (mimeType ?? "").toLowerCase();
  if (!INPUT_IMAGE_TYPES.includes(type)) {
    throw RequestError.invalidParams(
      { mimeType: mimeType ?? null },
      `${what} of type ${mimeType || "(none)"} is not supported: send ${INPUT_IMAGE_TYPES.join(", ")}`,
    );
  }
  return `data:${type};base64,${data}`;
}

/** The prompt's blocks as a run's input: their text in order, the images apart. */
export function promptInput(blocks: readonly ContentBlock[]): RunInput {
  const parts: string[] = [];
  const images: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "image":
        images.push(imageUrl(block.mimeType, block.data, "an image"));
        break;
      case "resource_link":
        parts.push(linkReference(block.uri, block.name));
        break;
      case "resource": {
        const resource = block.resource;
        if ("text" in resource) parts.push(embeddedText(resource.uri, resource.text));
        else images.push(imageUrl(resource.mimeType, resource.blob, `the embedded resource ${resource.uri}`));
        break;
      }
      default:
        throw RequestError.invalidParams(
          { type: block.type },
          `prompt blocks of type ${block.type} are not supported: send text, images, resources or resource links`,
        );
    }
  }
  const text = parts.join("\n");
  return images.length === 0 ? text : { text, images };
}
