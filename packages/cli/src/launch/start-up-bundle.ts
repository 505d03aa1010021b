import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Script } from "node:vm";
import { REQUEST_CREATED_CHANNELS } from "../request-created-channel.js";
import { withStartWasmFlags } from "../wasm-compiler.js";
import {
  CODE_CACHE_DEBUG_ENV,
  type CodeCache,
  codeCacheFor,
  MANIFEST_FILE,
  readManifest,
} from "./code-cache.js";
import { distDir } from "./dist-dir.js";

/** The one-file CommonJS build of the CLI, beside this file (its manifest: code-cache.ts). */
export const BUNDLE_FILE = "cli.cjs";

/**
 * The request at whose creation a new cache is made: the second, so the cache holds what the start
 * compiled and what the first round did (the model's answer streamed and read, a tool call approved,
 * run and recorded), which a session's first round otherwise compiled again at every start (some
 * 17 ms of a 20-round run's first round, measured). A run with one request makes it at its end.
 */
const CACHE_AT_REQUEST = 2;

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

/**
 * Keeps a new cache once the start and a first round are done (CACHE_AT_REQUEST), under the flags
 * the next start reads it with (wasm-compiler.ts). A command that never created a request (it made
 * no model request) keeps none: its cache would be accepted by every later start and never replaced.
 */
function saveAfterFirstRound(script: Script, save: CodeCache["save"], env: NodeJS.ProcessEnv): void {
  if (save === undefined) return;
  let requests = 0;
  let saved = false;
  const saveNow = () => {
    if (saved || requests === 0) return;
    saved = true;
    for (const channel of REQUEST_CREATED_CHANNELS) unsubscribe(channel, onRequest);
    save(withStartWasmFlags(() => script.createCachedData()));
    debug(env, "saved");
  };
  const onRequest = () => {
    requests += 1;
    if (requests >= CACHE_AT_REQUEST) saveNow();
  };
  for (const channel of REQUEST_CREATED_CHANNELS) subscribe(channel, onRequest);
  process.once("exit", saveNow);
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
      saveAfterFirstRound(script, save, env);
      const moduleFunction = script.runInThisContext() as ModuleFunction;
      const module = { exports: {} };
      moduleFunction.call(module.exports, module.exports, createRequire(file), module, file, dir);
    },
  };
}
