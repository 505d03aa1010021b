// The built-in tools: the file and image tools and the registry that makes a session's tools
// from its definitions. Core's index re-exports this surface.

export { createDescribeImageTool } from "./describe-image.js";
export { createEditFileTool } from "./edit-file.js";
export { type ImageMimeType, sniffImageType } from "./image-source.js";
export { createReadFileTool } from "./read-file.js";
export { createReadImageTool } from "./read-image.js";
export {
  BUILTIN_TOOL_FACTORIES,
  type BuiltinToolset,
  createBuiltinTools,
  selectToolsForModel,
} from "./registry.js";
export { createWriteFileTool } from "./write-file.js";
