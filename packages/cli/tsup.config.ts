import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { defineConfig, type Options } from "tsup";

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
export const START_UP = ["openai", "zod", "yaml", "commander"];

/**
 * zod's namespace exports the messages of its 49 locales (`z.locales`), and a namespace is kept
 * whole by the bundler: a fifth of the inlined zod, compiled on every start. Penguin reports
 * errors in English only, which zod registers itself (`locales/en.js`); the bundle's
 * `z.locales` holds that one.
 */
export const englishOnlyZodLocales: NonNullable<Options["esbuildPlugins"]>[number] = {
  name: "english-only-zod-locales",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]zod[\\/]v4[\\/](classic|core)$/.test(args.resolveDir)) return undefined;
      return { path: join(dirname(args.resolveDir), "locales", "index.js"), namespace: "zod-locales" };
    });
    build.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: dirname(args.path),
      loader: "js",
    }));
  },
};

/**
 * The provider SDKs send their requests through Penguin's fetch over node:http (@penguin/core), but
 * they still build each request's headers with the global `Headers` and ask whether its body is a
 * global `FormData`; in Node both are undici's, and the first touch of either loads all of Node's
 * `fetch` (some 20 ms before the first request, and more CPU a round, docs/benchmarks.md section 11).
 * In the bundle, an SDK module that names either gets them from src/sdk-web-globals.ts instead: an
 * import of those names shadows the globals in that module alone. A module that declared either
 * name itself would fail the build, not be changed silently. Only an inlined SDK is rewritten: the
 * OpenAI SDK (START_UP); the Anthropic SDK loads from node_modules, with Node's `Headers`. Both
 * builds resolve the SDK through its "import" condition, to its ES module files (.mjs); the
 * lazy-loading test fails if a run loads undici all the same.
 */
const SDK_MODULE = /[\\/]node_modules[\\/](?:openai|@anthropic-ai[\\/]sdk)[\\/].+\.mjs$/;
const NAMES_WEB_GLOBALS = /(?<![\w$.])(?:Headers|FormData)(?![\w$])/;
const SDK_WEB_GLOBALS = join(import.meta.dirname, "src", "sdk-web-globals.ts");

export const sdkWebGlobals: NonNullable<Options["esbuildPlugins"]>[number] = {
  name: "sdk-web-globals",
  setup(build) {
    build.onLoad({ filter: SDK_MODULE }, async (args) => {
      const source = await readFile(args.path, "utf8");
      if (!NAMES_WEB_GLOBALS.test(source)) return undefined;
      const shadow = `import { Headers, FormData } from ${JSON.stringify(SDK_WEB_GLOBALS)};`;
      return { contents: `${shadow}\n${source}`, loader: "js", resolveDir: dirname(args.path) };
    });
  },
};

/**
 * The package's version as a constant of the build (src/version.ts), read from package.json when
 * the build starts: a start then reads no package.json.
 */
export const VERSION_DEFINE: Record<string, string> = {
  __PENGUIN_CLI_VERSION__: JSON.stringify(
    (JSON.parse(readFileSync(join(import.meta.dirname, "package.json"), "utf8")) as { version: string })
      .version,
  ),
};

/** Compiled into the CLI's own files: the workspace packages, and what a run needs before its first request. */
export const INLINED = [
  "@penguin/core",
  "@penguin/protocol",
  "@penguin/state",
  "@penguin/trace",
  ...START_UP,
];

export default defineConfig({
  // The `penguin` binary is `dist/bin.cjs` (tsup.start-up.config.ts); `--version` and `--help` import
  // `run-cli.js` from it; scripts/make-light-output.mjs imports `render-light-output.js`.
  entry: ["src/index.ts", "src/run-cli.ts", "src/render-light-output.ts"],
  format: ["esm"],
  target: "node20",
  platform: "node",
  dts: { entry: "src/index.ts" },
  clean: true,
  sourcemap: true,
  splitting: true,
  noExternal: INLINED,
  external: ["@penguin/server"],
  esbuildPlugins: [englishOnlyZodLocales, sdkWebGlobals],
  define: VERSION_DEFINE,
  banner: {
    js: 'import { createRequire as __penguinCreateRequire } from "node:module"; const require = __penguinCreateRequire(import.meta.url);',
  },
});
