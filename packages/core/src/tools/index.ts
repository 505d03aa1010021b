// The built-in tools: the file and image tools and the registry that makes a session's tools
// from its definitions. Core's index re-exports this surface.

export { createDescribeImageTool } from "./describe-image/describe-image.js";
export { createEditFileTool } from "./edit-file/edit-file.js";
export { type ImageMimeType, sniffImageType } from "./files/image-source.js";
export { createReadFileTool } from "./read-file/read-file.js";
export { createReadImageTool } from "./read-image/read-image.js";
export {
  BUILTIN_TOOL_FACTORIES,
  type BuiltinToolset,
  createBuiltinTools,
  selectToolsForModel,
} from "./registry.js";
export { createWriteFileTool } from "./write-file/write-file.js";
