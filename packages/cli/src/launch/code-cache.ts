import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/**
 * Where V8's code cache of the one-file CLI (`dist/cli.cjs`) comes from and goes to.
 *
 * Node 20 keeps no code cache for a program's own files: every start compiles the CLI's
 * JavaScript again (some 2.5 MB before the first model request; 95 ms of a 340 ms start in the
 * profile of docs/benchmarks.md section 11). The build ships a cache made with the Node that built
 * it; a machine whose Node differs makes its own at its first run and keeps it in the user's cache
 * folder. A cache is only an optimisation: one that is missing, unreadable, stale or refused by V8
 * costs the compile, never the run.
 */

/** `off` turns the cache off; any other value is the folder the cache files go to. */
export const CODE_CACHE_ENV = "PENGUIN_CODE_CACHE";
/** When set, the launcher says on stderr which cache it used (for tests and bug reports). */
export const CODE_CACHE_DEBUG_ENV = "PENGUIN_DEBUG_CODE_CACHE";

/** What the build wrote about the bundle, beside it. */
export const MANIFEST_FILE = "cli.cjs.json";

/** What the build wrote beside the bundle (`cli.cjs.json`). */
export interface BundleManifest {
  /** SHA-256 of `cli.cjs`: V8 checks a cache against the source's length only, so the name carries it. */
  sha256: string;
  /**
   * The build checked that the bundle is all ASCII: it is then read as Latin-1, a plain copy, where
   * Node's UTF-8 decoding of the same 1.7 MB took 10 – 20 ms of every start.
   */
  ascii: boolean;
  /** The cache the build made, and the Node it is for; null when the build made none. */
  cache: { file: string; node: string; arch: string } | null;
}

export type CacheOrigin = "user" | "shipped" | "none";

export interface CodeCache {
  origin: CacheOrigin;
  data: Buffer | undefined;
  /** Keeps a new cache for the next start; undefined when caching is off. */
  save: ((data: Buffer) => void) | undefined;
}

const NO_CACHE: CodeCache = { origin: "none", data: undefined, save: undefined };

export function readManifest(path: string): BundleManifest | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<BundleManifest>;
    if (typeof parsed.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(parsed.sha256)) return undefined;
    return { sha256: parsed.sha256, ascii: parsed.ascii === true, cache: parsed.cache ?? null };
  } catch {
    return undefined;
  }
}

/** The folder of the user's cache files: `$PENGUIN_CODE_CACHE`, else `$XDG_CACHE_HOME/penguin`, else `~/.cache/penguin`. */
export function userCacheFolder(env: NodeJS.ProcessEnv): string | undefined {
  const chosen = env[CODE_CACHE_ENV];
  if (chosen === "off") return undefined;
  if (chosen) return chosen;
  const base = env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache");
  return join(base, "penguin");
}

/** One file per bundle and Node: two installs of Node never overwrite each other's cache. */
export function userCacheFile(folder: string, manifest: BundleManifest): string {
  return join(folder, `cli-${manifest.sha256.slice(0, 16)}-${process.version}-${process.arch}.v8cache`);
}

function readOrUndefined(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** Written whole or not at all (a temporary file renamed over it): a second CLI never reads half a cache. */
function writeCacheFile(folder: string, file: string, data: Buffer): void {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, data, { mode: 0o600 });
    renameSync(temporary, file);
  } catch {
    // A read-only or full disk costs the next start its compile, nothing more.
  }
}

/** The cache to compile `cli.cjs` with: the user's own, else the one the build shipped for this Node. */
export function codeCacheFor(
  distDir: string,
  manifest: BundleManifest | undefined,
  env: NodeJS.ProcessEnv,
): CodeCache {
  if (manifest === undefined) return NO_CACHE;
  const folder = userCacheFolder(env);
  if (folder === undefined) return NO_CACHE;
  const file = userCacheFile(folder, manifest);
  const save = (data: Buffer) => writeCacheFile(folder, file, data);
  const own = readOrUndefined(file);
  if (own !== undefined) return { origin: "user", data: own, save };
  const shipped = manifest.cache;
  if (shipped !== null && shipped.node === process.version && shipped.arch === process.arch) {
    const data = readOrUndefined(join(distDir, shipped.file));
    if (data !== undefined) return { origin: "shipped", data, save };
  }
  return { origin: "none", data: undefined, save };
}
