import { defineConfig, type Options } from "tsup";
import {
  BUNDLE_IMPORT_META_URL,
  BUNDLE_IMPORT_META_URL_LINE,
  BUNDLE_WRAPPER_HEAD,
  BUNDLE_WRAPPER_TAIL,
} from "./src/launch/bundle-wrapper.js";
import { englishOnlyZodLocales, INLINED, sdkWebGlobals, VERSION_DEFINE } from "./tsup.config.js";

/**
 * `dist/cli.cjs`: the whole CLI in one CommonJS file, for `bin.cjs` to compile with V8's code cache
 * (src/launch/start-up-bundle.ts). Node 20 caches no compiled code for ES modules, and a CommonJS
 * script compiled through `node:vm` can be given a cache. Built after the ES module build (whose
 * `clean` would remove it), with the same libraries inlined and the same kept outside.
 *
 * Dynamic `import()` is written as `require()`: a `node:vm` script can only `import()` through an
 * experimental Node API, and Node ≥ 20.19 loads an ES module package with `require()`. The chunks
 * a command loads lazily are inlined too; V8 compiles a function only when it first runs, and the
 * cache holds what the start ran.
 */
/**
 * One `.cjs` file per entry, added to the ES module build's `dist` (its `clean` ran before). No
 * source maps: 7 MB a user's Node never reads (it maps stack traces only with --enable-source-maps).
 */
const COMMONJS_FILE: Options = {
  format: ["cjs"],
  outExtension: () => ({ js: ".cjs" }),
  target: "node20",
  platform: "node",
  clean: false,
  sourcemap: false,
  splitting: false,
};

export default defineConfig([
  {
    ...COMMONJS_FILE,
    entry: { cli: "src/start-up-bundle-entry.ts" },
    // `import.meta.url` from the file's own path (bundle-wrapper.ts), not tsup's shim.
    define: { "import.meta.url": BUNDLE_IMPORT_META_URL, ...VERSION_DEFINE },
    // Whitespace and syntax only, names kept (stack traces still name every function): a third less
    // to read at each start (2.5 → 1.7 MB), some 4 % of the CPU to the first request (measured).
    minifyWhitespace: true,
    minifySyntax: true,
    noExternal: INLINED,
    external: ["@penguin/server"],
    esbuildPlugins: [englishOnlyZodLocales, sdkWebGlobals],
    // The CommonJS module wrapper is in the file itself, so the launcher compiles the file's text as
    // read: adding it at run time would copy the 2.5 MB source once more at every start.
    banner: { js: `${BUNDLE_WRAPPER_HEAD}${BUNDLE_IMPORT_META_URL_LINE}` },
    footer: { js: BUNDLE_WRAPPER_TAIL },
    esbuildOptions(options) {
      options.supported = { ...options.supported, "dynamic-import": false };
      // Every character past ASCII written as an escape: the launcher then reads the file as
      // Latin-1, a copy, where decoding 1.7 MB of UTF-8 took 10 – 30 ms of every start.
      options.charset = "ascii";
    },
  },
  {
    /**
     * `dist/bin.cjs`, the `penguin` binary: CommonJS, because Node starts an ES module entry through
     * its ES module loader, some 7 ms of every start before a line of Penguin runs. It holds only
     * the launcher (launch/), and imports the ES module build's `run-cli.js` for `--version` and
     * `--help`.
     */
    ...COMMONJS_FILE,
    entry: { bin: "src/bin.ts" },
    shims: true,
    external: [/run-cli\.js$/],
  },
]);
