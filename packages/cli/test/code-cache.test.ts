import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { execa } from "execa";
import { describe, expect, test } from "vitest";
import {
  type BundleManifest,
  CODE_CACHE_DEBUG_ENV,
  CODE_CACHE_ENV,
  codeCacheFor,
  readManifest,
  userCacheFile,
} from "../src/launch/code-cache.js";
import { lightInvocation } from "../src/launch/light-invocation.js";
import { startUpBundle } from "../src/launch/start-up-bundle.js";
import { CLI_BIN, fakeOpenAiPerTest, penguin, tempDir } from "./helpers.js";

// Node 20 compiles a program's own JavaScript again at every start; the CLI's launcher runs the
// one-file build (`dist/cli.cjs`) with V8's code cache instead: the one the build shipped for this
// Node, else the user's own, made in a session (at its second model request, so its first round's
// code is in it; at the end of a run that made only one). A cache is an optimisation only: a
// missing, broken or refused one costs the compile, never the run.

const DIST = resolve(import.meta.dirname, "../dist");
const manifest = (): BundleManifest => {
  const read = readManifest(join(DIST, "cli.cjs.json"));
  if (read === undefined) throw new Error("the build wrote no dist/cli.cjs.json");
  return read;
};
const startFake = fakeOpenAiPerTest("sk-test-code-cache-0123456789");

/** `penguin run` against the fake model, saying which cache it used; `cacheFolder` is the user's. */
async function runWithCache(cacheFolder: string) {
  const { env } = await startFake([{ text: "Cached start." }]);
  const r = await penguin(["run", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "hi"], {
    env: { ...env, [CODE_CACHE_ENV]: cacheFolder, [CODE_CACHE_DEBUG_ENV]: "1" },
  });
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stdout).toContain("Cached start.");
  return r.stderr;
}

describe("the build", () => {
  test("names the one-file CLI by its content and ships a cache made by this Node", () => {
    const { sha256, cache } = manifest();
    expect(sha256).toBe(
      createHash("sha256")
        .update(readFileSync(join(DIST, "cli.cjs")))
        .digest("hex"),
    );
    expect(cache).toEqual({ file: "cli.cjs.cache", node: process.version, arch: process.arch });
    expect(statSync(join(DIST, "cli.cjs.cache")).size).toBeGreaterThan(100_000);
  });

  test("writes the one-file CLI in ASCII, and says so, so the launcher reads it without decoding", () => {
    expect(manifest().ascii).toBe(true);
    const bytes = readFileSync(join(DIST, "cli.cjs"));
    expect(bytes.findIndex((byte) => byte >= 0x80)).toBe(-1);
  });
});

describe("a session's start", () => {
  test("uses the cache the build shipped and writes none of its own", async () => {
    const folder = join(tempDir("cache"), "penguin");
    const stderr = await runWithCache(folder);
    expect(stderr).toContain("code cache: shipped accepted");
    expect(stderr).not.toContain("code cache: saved");
    // The bundle's own text past ASCII (escaped in the file) comes out as written.
    expect(stderr).toContain("── done ·");
    expect(existsSync(folder)).toBe(false);
  });

  test("replaces a cache V8 refuses at the first model request, and the next start uses it", async () => {
    const folder = join(tempDir("cache"), "penguin");
    mkdirSync(folder, { recursive: true });
    const file = userCacheFile(folder, manifest());
    writeFileSync(file, "not a code cache, cut short by a full disk");
    const first = await runWithCache(folder);
    expect(first).toContain("code cache: user rejected");
    expect(first).toContain("code cache: saved");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(file).size).toBeGreaterThan(100_000);
    // Written whole, through a temporary file: nothing else is left in the folder.
    expect(readdirSync(folder)).toEqual([file.slice(folder.length + 1)]);
    const second = await runWithCache(folder);
    expect(second).toContain("code cache: user accepted");
    expect(second).not.toContain("code cache: saved");
  });

  test("a cache made after a round that used Node's fetch, with the WebAssembly flags changed, is accepted by the next start", async () => {
    const folder = join(tempDir("cache"), "penguin");
    mkdirSync(folder, { recursive: true });
    const file = userCacheFile(folder, manifest());
    writeFileSync(file, "refused");
    // Model requests go over node:http; web_fetch goes through Node's fetch, whose first request
    // sets the WebAssembly flags (wasm-compiler.ts) before the cache is made at the second model request.
    const { llm, env } = await startFake([]);
    llm.setScript([
      { tool_calls: [{ name: "web_fetch", arguments: { url: `${llm.url}/v1/models` } }] },
      { text: "Cached after a round." },
    ]);
    mkdirSync(join(env.PENGUIN_HOME, "agents", "default"), { recursive: true });
    writeFileSync(
      join(env.PENGUIN_HOME, "agents", "default", "system_config.yaml"),
      "tools:\n  preset: extended\n",
    );
    const first = await penguin(["run", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "hi"], {
      env: { ...env, [CODE_CACHE_ENV]: folder, [CODE_CACHE_DEBUG_ENV]: "1" },
    });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stdout).toContain("Cached after a round.");
    expect(llm.requests.map((request) => request.path)).toEqual([
      "/v1/chat/completions",
      "/v1/models",
      "/v1/chat/completions",
    ]);
    expect(first.stderr).toContain("code cache: user rejected");
    expect(first.stderr.split("code cache: saved").length).toBe(2);
    const second = await penguin(["run", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "hi"], {
      env: {
        ...(await startFake([{ text: "Again." }])).env,
        [CODE_CACHE_ENV]: folder,
        [CODE_CACHE_DEBUG_ENV]: "1",
      },
    });
    expect(second.stderr).toContain("code cache: user accepted");
  });

  test("started with a WebAssembly flag of the user's, the CLI leaves it, and its cache is accepted next time", async () => {
    const folder = join(tempDir("cache"), "penguin");
    mkdirSync(folder, { recursive: true });
    writeFileSync(userCacheFile(folder, manifest()), "refused");
    const runOnce = async (script: Parameters<typeof startFake>[0]) => {
      const { env } = await startFake(script);
      return execa(
        process.execPath,
        [
          "--no-wasm-tier-up",
          CLI_BIN,
          "run",
          "--model",
          "openai/fake-model",
          "-w",
          tempDir("ws"),
          "-m",
          "hi",
        ],
        {
          env: { NO_COLOR: "1", ...env, [CODE_CACHE_ENV]: folder, [CODE_CACHE_DEBUG_ENV]: "1" },
          input: "",
          reject: false,
        },
      );
    };
    const first = await runOnce([
      { tool_calls: [{ name: "exec_command", arguments: { description: "one round", cmd: "echo one" } }] },
      { text: "Done." },
    ]);
    expect(first.exitCode, String(first.stderr)).toBe(0);
    expect(String(first.stderr)).toContain("code cache: saved");
    const second = await runOnce([{ text: "Again." }]);
    expect(String(second.stderr)).toContain("code cache: user accepted");
  });

  test("a command that makes no model request keeps no cache: it would stand in for a session's", async () => {
    const folder = join(tempDir("cache"), "penguin");
    mkdirSync(folder, { recursive: true });
    const file = userCacheFile(folder, manifest());
    writeFileSync(file, "refused");
    const r = await penguin(["sessions", "list"], {
      env: { PENGUIN_HOME: tempDir("data"), [CODE_CACHE_ENV]: folder, [CODE_CACHE_DEBUG_ENV]: "1" },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain("code cache: user rejected");
    expect(r.stderr).not.toContain("code cache: saved");
    expect(readFileSync(file, "utf8")).toBe("refused");
  });

  test("with the cache off, reads and writes no cache", async () => {
    const home = tempDir("home");
    const { env } = await startFake([{ text: "Uncached start." }]);
    const r = await penguin(["run", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "hi"], {
      env: { ...env, HOME: home, [CODE_CACHE_ENV]: "off", [CODE_CACHE_DEBUG_ENV]: "1" },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("Uncached start.");
    expect(r.stderr).toContain("code cache: none absent");
    expect(existsSync(join(home, ".cache"))).toBe(false);
  });

  test("--version and --help do not read the one-file CLI", async () => {
    for (const flag of ["--version", "--help"]) {
      const r = await penguin([flag], { env: { [CODE_CACHE_DEBUG_ENV]: "1" } });
      expect(r.exitCode).toBe(0);
      expect(r.stderr).not.toContain("code cache");
    }
  });
});

describe("the launcher's parts", () => {
  test("only a lone version or help flag skips the one-file CLI", () => {
    const kinds: Array<[string[], string]> = [
      [[], "usage"],
      [["--version"], "version"],
      [["-V"], "version"],
      [["--help"], "help"],
      [["-h"], "help"],
      [["help"], "help"],
    ];
    for (const [args, kind] of kinds) {
      expect(lightInvocation(args) !== undefined, args.join(" ")).toBe(true);
      expect(lightInvocation(args), args.join(" ")).toBe(kind);
    }
    for (const args of [["run", "--help"], ["--version", "run"], ["sessions"], ["run", "-m", "hi"]]) {
      expect(lightInvocation(args) !== undefined, args.join(" ")).toBe(false);
    }
  });

  test("without a one-file CLI beside it, the launcher steps aside for the ES module build", () => {
    // The launcher's source folder holds no cli.cjs.
    expect(startUpBundle({})).toBeUndefined();
  });

  test("a manifest that does not name the bundle by a SHA-256 turns the cache off", () => {
    const dir = tempDir("manifest");
    const write = (content: string) => {
      writeFileSync(join(dir, "cli.cjs.json"), content);
      return readManifest(join(dir, "cli.cjs.json"));
    };
    expect(write("{ torn")).toBeUndefined();
    expect(write(JSON.stringify({ sha256: "../../etc/passwd", cache: null }))).toBeUndefined();
    // A manifest of an earlier build, which checked no encoding: the bundle is decoded as UTF-8.
    expect(write(JSON.stringify({ sha256: "a".repeat(64), cache: null }))?.ascii).toBe(false);
    expect(codeCacheFor(dir, undefined, { [CODE_CACHE_ENV]: tempDir("c") })).toMatchObject({
      origin: "none",
      save: undefined,
    });
  });

  test("a cache folder that cannot be made costs the cache, not the run", () => {
    const blocker = join(tempDir("blocked"), "a-file");
    writeFileSync(blocker, "");
    const cache = codeCacheFor(DIST, manifest(), { [CODE_CACHE_ENV]: join(blocker, "penguin") });
    expect(cache.origin).toBe("shipped");
    expect(() => cache.save?.(Buffer.from("data"))).not.toThrow();
    expect(existsSync(join(blocker, "penguin"))).toBe(false);
  });

  test("a new cache folder is private to its user", () => {
    const folder = join(tempDir("fresh"), "cache", "penguin");
    const cache = codeCacheFor(DIST, manifest(), { [CODE_CACHE_ENV]: folder });
    cache.save?.(Buffer.from("data"));
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(userCacheFile(folder, manifest())).mode & 0o777).toBe(0o600);
  });
});

describe("the built CLI installed under any folder name", () => {
  test("a folder named with # and % runs a session from the one-file build and its cache", async () => {
    // The package as npm lays it out: dist/ and package.json, its libraries in node_modules.
    const root = join(tempDir("install"), "tools #1 100% penguin");
    mkdirSync(root);
    cpSync(DIST, join(root, "dist"), { recursive: true });
    cpSync(resolve(DIST, "../package.json"), join(root, "package.json"));
    symlinkSync(resolve(DIST, "../node_modules"), join(root, "node_modules"));
    const { env } = await startFake([{ text: "Installed anywhere." }]);
    const r = await execa(
      process.execPath,
      [join(root, "dist", "bin.cjs"), "run", "--model", "openai/fake-model", "-w", tempDir("ws"), "-m", "hi"],
      { env: { ...env, NO_COLOR: "1", [CODE_CACHE_DEBUG_ENV]: "1" }, reject: false, timeout: 60_000 },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("Installed anywhere.");
    expect(r.stderr).toContain("code cache: shipped accepted");
  });
});
