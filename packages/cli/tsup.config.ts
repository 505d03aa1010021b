import { defineConfig } from "tsup";

/**
 * The CLI ships bundled: the workspace packages it is built from are compiled into its dist, so
 * `npm install -g @penguin/cli` needs nothing from the registry but the third-party libraries in
 * its `dependencies`. `@penguin/server` stays outside (an optional peer, imported only by
 * `penguin serve`), and each command's module is its own chunk, loaded when that command runs.
 *
 * The libraries `penguin run` needs before its first model request are inlined too (START_UP):
 * Node loads an ES module file by file, and the OpenAI SDK and zod alone are some 740 files, a
 * fifth of the time to the first request. They stay in `dependencies` (the MCP SDK, loaded from
 * node_modules, uses zod). The banner gives inlined CommonJS code (commander, yaml) a `require`
 * for Node's built-in modules.
 */
const START_UP = ["openai", "zod", "yaml", "commander"];

export default defineConfig({
  entry: ["src/index.ts", "src/bin.ts"],
  format: ["esm"],
  target: "node20",
  platform: "node",
  dts: { entry: "src/index.ts" },
  clean: true,
  sourcemap: true,
  splitting: true,
  noExternal: ["@penguin/core", "@penguin/protocol", "@penguin/state", "@penguin/trace", ...START_UP],
  external: ["@penguin/server"],
  banner: {
    js: 'import { createRequire as __penguinCreateRequire } from "node:module"; const require = __penguinCreateRequire(import.meta.url);',
  },
});
