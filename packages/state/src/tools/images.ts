import type { ToolDefinitionConfig } from "./definition-parts.js";
import { DEFAULT_MAX_OUTPUT_LENGTH, type JsonSchema, objectSchema } from "./definition-parts.js";

// read_image and describe_image: their definitions and every number their descriptions state.
// Core's read-image/ and describe-image/ folders implement them with these constants.

/** "support png/jpeg/gif/webp up to 5MB". */
export const IMAGE_MAX_BYTES = 5 * 1024 * 1024;
/** read_image's timeout (the contract's table). */
export const READ_IMAGE_TIMEOUT_MS = 60_000;
/** describe_image's timeout (the contract's table). */
export const DESCRIBE_IMAGE_TIMEOUT_MS = 90_000;

/** The size limit as the descriptions say it ("up to 5 MB"). */
const IMAGE_LIMIT_TEXT = `up to ${IMAGE_MAX_BYTES / (1024 * 1024)} MB`;

const imageSource: JsonSchema = {
  type: "string",
  description: "http(s) URL, or a file path (absolute or relative to the workspace).",
};

export const READ_IMAGE_DEFINITION: ToolDefinitionConfig = {
  name: "read_image",
  description: `Load an image (png, jpeg, gif or webp, ${IMAGE_LIMIT_TEXT}) so that you can see it.`,
  parameters: objectSchema({ source: imageSource }, ["source"]),
  permission: "r",
  forModel: "vision",
  timeoutMs: READ_IMAGE_TIMEOUT_MS,
  maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
};

export const DESCRIBE_IMAGE_DEFINITION: ToolDefinitionConfig = {
  name: "describe_image",
  description: `Have a vision model look at an image (png, jpeg, gif or webp, ${IMAGE_LIMIT_TEXT}) and answer your prompt about it in text.`,
  parameters: objectSchema(
    {
      source: imageSource,
      prompt: {
        type: "string",
        description: "What to ask about the image; default a detailed description.",
      },
    },
    ["source"],
  ),
  permission: "r",
  forModel: "text-only",
  timeoutMs: DESCRIBE_IMAGE_TIMEOUT_MS,
  maxOutputLength: DEFAULT_MAX_OUTPUT_LENGTH,
};
