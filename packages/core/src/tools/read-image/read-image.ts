import type { ToolDefinitionConfig } from "@penguin/state";
import type { BuiltinTool } from "../../environment/types.js";
import { answer, fail } from "../call-text.js";
import { executeWithArguments, stringArg } from "../files/file-tool-support.js";
import { loadImage } from "../files/image-source.js";

// "read_image (vision models): Read an image and return it as image content."

export function createReadImageTool(definition: ToolDefinitionConfig): BuiltinTool {
  const execute = executeWithArguments({ source: stringArg("source") }, async function* ({ source }, ctx) {
    const loaded = await loadImage(source, ctx.workspaceDir, ctx.signal, ctx);
    if (!loaded.ok) return yield* fail(ctx, loaded.error);
    const { image } = loaded;
    return yield* answer(
      ctx,
      `Image ${image.shownSource} (${image.mimeType}, ${image.bytes.length} bytes).`,
      {
        images: [image.dataUrl],
      },
    );
  });

  return { name: definition.name, definition, execute };
}
