import { defineConfig } from "tsup";

/**
 * The CLI ships bundled: the workspace packages it is built from are compiled into its dist, so
 * `npm install -g @penguin/cli` needs nothing from the registry but the third-party libraries in
 * its `dependencies`. `@penguin/server` stays outside (an optional peer, imported only by
 * `penguin serve`), and each command's module is its own chunk, loaded when that command runs.
 */
export default defineConfig({
  entry: ["src/index.ts", "src/bin.ts"],
  format: ["esm"],
  target: "node20",
  platform: "node",
  dts: { entry: "src/index.ts" },
  clean: true,
  sourcemap: true,
  splitting: true,
  noExternal: ["@penguin/core", "@penguin/protocol", "@penguin/state", "@penguin/trace"],
  external: ["@penguin/server"],
});
