/**
 * The CommonJS module wrapper around `dist/cli.cjs`, written by the build: the file is one function
 * expression, which the launcher compiles and calls as Node calls a module. The head is a line of
 * its own, so the bundle's lines keep their numbers (the launcher compiles with `lineOffset: -1`).
 */
export const BUNDLE_WRAPPER_HEAD = "(function (exports, require, module, __filename, __dirname) {";

/**
 * What `import.meta.url` becomes in the CommonJS bundle (the build's `define`), and the line that
 * sets it, on the wrapper's own line. `pathToFileURL` escapes what a URL would misread in a folder's
 * name (`#`, `%`, `?`), which a URL made by writing `file:` before the path does not: installed
 * under such a folder, the CLI looked for its own files in the wrong place.
 */
export const BUNDLE_IMPORT_META_URL = "__penguinImportMetaUrl";
// Strict mode first: the bundle's own "use strict" now follows a statement, where it is no directive.
export const BUNDLE_IMPORT_META_URL_LINE = `"use strict";const ${BUNDLE_IMPORT_META_URL} = require("node:url").pathToFileURL(__filename).href;`;
export const BUNDLE_WRAPPER_TAIL = "})";
