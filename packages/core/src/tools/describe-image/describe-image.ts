import { errorMessage } from "@penguin/protocol";
import type { ToolDefinitionConfig } from "@penguin/state";
import { DEFAULT_DESCRIBE_IMAGE_PROMPT } from "../../environment/limits.js";
import type { BuiltinTool, ToolExecutionContext } from "../../environment/types.js";
import { answer, fail } from "../call-text.js";
import { executeWithArguments, optionalStringArg, stringArg } from "../files/file-tool-support.js";
import { loadImage } from "../files/image-source.js";

// "Text-only models get describe_image: the image plus a prompt are forwarded to the Project's
// configured vision_model, whose text answer becomes the tool output."

export const NO_VISION_MODEL_MESSAGE =
  "describe_image needs a vision model, and none is configured for this project. Ask the user to configure one with `penguin config vision-model <provider/model>` (a model listed in the project config with vision: true), or to set vision_model in the project config (project.yaml).";

export function createDescribeImageTool(definition: ToolDefinitionConfig): BuiltinTool {
  const execute = executeWithArguments(
    { source: stringArg("source"), prompt: optionalStringArg("prompt") },
    async function* ({ source, prompt }, ctx) {
      if (!ctx.describeImage) return yield* fail(ctx, NO_VISION_MODEL_MESSAGE);
      const loaded = await loadImage(source, ctx.workspaceDir, ctx.signal, ctx);
      if (!loaded.ok) return yield* fail(ctx, loaded.error);
      const question = prompt?.trim() ? prompt : DEFAULT_DESCRIBE_IMAGE_PROMPT;
      let reply: Awaited<ReturnType<NonNullable<ToolExecutionContext["describeImage"]>>>;
      try {
        reply = await ctx.describeImage(
          { dataUrl: loaded.image.dataUrl, mimeType: loaded.image.mimeType },
          question,
          ctx.signal,
        );
      } catch (error) {
        reply = { ok: false, error: errorMessage(error) };
      }
      if (!reply.ok)
        return yield* fail(
          ctx,
          `The vision model could not describe ${loaded.image.shownSource}: ${reply.error}`,
        );
      if (reply.text.trim() === "")
        return yield* fail(ctx, `The vision model returned an empty answer for ${loaded.image.shownSource}.`);
      return yield* answer(ctx, reply.text);
    },
  );

  return { name: definition.name, definition, execute };
}
