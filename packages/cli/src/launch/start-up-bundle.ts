import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Script } from "node:vm";
import { CODE_CACHE_DEBUG_ENV, type CodeCache, codeCacheFor, readManifest } from "./code-cache.js";
import { distDir } from "./dist-dir.js";

/** The one-file CommonJS build of the CLI, and what the build wrote about it, beside this file. */
export const BUNDLE_FILE = "cli.cjs";
export const MANIFEST_FILE = "cli.cjs.json";

/**
 * Node's `fetch` announces each request it creates here. The CLI changes V8's flags on the first
 * one (wasm-compiler.ts), and V8 refuses a cache made under other flags than the ones in force at
 * the next start: the cache is made just before, when it also holds everything the start compiled.
 */
const REQUEST_CREATED_CHANNEL = "undici:request:create";

type ModuleFunction = (
  exports: object,
  require: NodeJS.Require,
  module: { exports: object },
  filename: string,
  dirname: string,
) => void;

export interface StartUpBundle {
  run(): void;
}

function debug(env: NodeJS.ProcessEnv, line: string): void {
  if (env[CODE_CACHE_DEBUG_ENV]) process.stderr.write(`penguin: code cache: ${line}\n`);
}

/** Keeps a new cache once the start is done: at the first model request, before the flags change. */
function saveAtFirstRequest(script: Script, save: CodeCache["save"], env: NodeJS.ProcessEnv): void {
  if (save === undefined) return;
  // Subscribed before the bundle runs, so this runs before the CLI's own subscriber changes the flags.
  const onFirstRequest = () => {
    unsubscribe(REQUEST_CREATED_CHANNEL, onFirstRequest);
    save(script.createCachedData());
    debug(env, "saved");
  };
  subscribe(REQUEST_CREATED_CHANNEL, onFirstRequest);
}

/**
 * `dist/cli.cjs` compiled with V8's code cache, ready to run; undefined when the build has no such
 * file (the caller runs the ES module build instead).
 */
export function startUpBundle(env: NodeJS.ProcessEnv = process.env): StartUpBundle | undefined {
  const dir = distDir();
  const file = join(dir, BUNDLE_FILE);
  const manifest = readManifest(join(dir, MANIFEST_FILE));
  let source: string;
  try {
    // ASCII reads the same as Latin-1 and as UTF-8; Latin-1 is a copy, UTF-8 a decode.
    source = readFileSync(file, manifest?.ascii ? "latin1" : "utf8");
  } catch {
    return undefined;
  }
  const cache = codeCacheFor(dir, manifest, env);
  const script = new Script(source, {
    filename: file,
    // The wrapper's line (bundle-wrapper.ts) is not the bundle's: stack traces keep its line numbers.
    lineOffset: -1,
    cachedData: cache.data,
  });
  const accepted = cache.data !== undefined && script.cachedDataRejected === false;
  debug(env, `${cache.origin} ${cache.data === undefined ? "absent" : accepted ? "accepted" : "rejected"}`);
  // Only the saver outlives this call: the cache's bytes (1.5 MB) are garbage once compiled.
  const save = accepted ? undefined : cache.save;
  return {
    run() {
      saveAtFirstRequest(script, save, env);
      const moduleFunction = script.runInThisContext() as ModuleFunction;
      const module = { exports: {} };
      moduleFunction.call(module.exports, module.exports, createRequire(file), module, file, dir);
    },
  };
}
