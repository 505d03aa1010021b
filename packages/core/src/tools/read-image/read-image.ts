import type { OmniMessage } from "@penguin/protocol";
import type { ToolDefinitionConfig } from "@penguin/state";
import type { BuiltinTool, ToolExecutionContext, ToolResult } from "../../environment/types.js";
import { answer, fail, stringArgument } from "../files/file-tool-support.js";
import { loadImage } from "../files/image-source.js";

// "read_image (vision models): Read an image and return it as image content."

export function createReadImageTool(definition: ToolDefinitionConfig): BuiltinTool {
  async function* execute(
    args: Record<string, unknown>,
    ctx: ToolExecutionContext,
  ): AsyncGenerator<OmniMessage, ToolResult> {
    const source = stringArgument(args, "source");
    if (!source.ok) return yield* fail(ctx, source.error);
    const loaded = await loadImage(source.value, ctx.workspaceDir, ctx.signal);
    if (!loaded.ok) return yield* fail(ctx, loaded.error);
    const { image } = loaded;
    return yield* answer(
      ctx,
      `Image ${image.shownSource} (${image.mimeType}, ${image.bytes.length} bytes).`,
      {
        images: [image.dataUrl],
      },
    );
  }

  return { name: definition.name, definition, execute };
}
