/**
 * The CommonJS module wrapper around `dist/cli.cjs`, written by the build: the file is one function
 * expression, which the launcher compiles and calls as Node calls a module. The head is a line of
 * its own, so the bundle's lines keep their numbers (the launcher compiles with `lineOffset: -1`).
 */
export const BUNDLE_WRAPPER_HEAD = "(function (exports, require, module, __filename, __dirname) {";
export const BUNDLE_WRAPPER_TAIL = "})";
