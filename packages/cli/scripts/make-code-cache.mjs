// After the build: names `dist/cli.cjs` by its SHA-256 in `dist/cli.cjs.json`, and ships a V8 code
// cache for it made by this Node (`dist/cli.cjs.cache`). The cache comes from a real session: a
// `penguin run` in a fresh home against fake-llm, whose model asks for one command and then
// answers (the cache is taken as the second model request is created, so what the start and a
// first round compiled is in it; src/launch/start-up-bundle.ts). A machine with another Node
// refuses the shipped cache and makes its own (src/launch/code-cache.ts).
import { isAscii } from "node:buffer";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeLlm } from "@penguin/fake-llm";

const dist = join(import.meta.dirname, "..", "dist");
const bundle = join(dist, "cli.cjs");
const manifestFile = join(dist, "cli.cjs.json");
const CACHE_FILE = "cli.cjs.cache";
/** A start that takes longer than this is broken, not slow. */
const RUN_TIMEOUT_MS = 60_000;

const bundleBytes = readFileSync(bundle);
// The launcher reads an ASCII bundle as Latin-1, a copy instead of a UTF-8 decode (start-up-bundle.ts):
// the start-up build escapes every other character (charset ascii), and a regular expression's own.
const ascii = isAscii(bundleBytes);
if (!ascii) console.warn("dist/cli.cjs is not all ASCII: the launcher will decode it as UTF-8 (slower)");
const sha256 = createHash("sha256").update(bundleBytes).digest("hex");
const writeManifest = (cache) =>
  writeFileSync(manifestFile, `${JSON.stringify({ sha256, ascii, cache }, null, 2)}\n`);
rmSync(join(dist, CACHE_FILE), { force: true });
writeManifest(null);

const WARM_UP_KEY = "sk-build-warm-up";
const llm = await startFakeLlm({
  apiKey: WARM_UP_KEY,
  script: [
    { tool_calls: [{ name: "exec_command", arguments: { description: "warm up", cmd: "echo warm" } }] },
    { text: "Warmed up." },
  ],
});

const home = mkdtempSync(join(tmpdir(), "penguin-code-cache-"));
const cacheFolder = join(home, "cache");
try {
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    PENGUIN_HOME: join(home, "data"),
    PENGUIN_CODE_CACHE: cacheFolder,
    NO_COLOR: "1",
    OPENAI_API_KEY: WARM_UP_KEY,
    OPENAI_BASE_URL: `${llm.url}/v1`,
  };
  const args = [join(dist, "bin.cjs"), "run", "--model", "openai/warm-up", "-w", home, "-m", "warm up"];
  const stderr = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, cwd: home, stdio: ["ignore", "ignore", "pipe"] });
    let text = "";
    child.stderr.on("data", (chunk) => {
      text += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
    child.on("error", reject);
    child.on("close", () => {
      clearTimeout(timer);
      resolve(text);
    });
  });
  const made = readdirSync(cacheFolder, { withFileTypes: true }).filter((entry) =>
    entry.name.endsWith(".v8cache"),
  );
  if (made.length !== 1) throw new Error(`the warm-up run made no code cache; its stderr:\n${stderr}`);
  renameSync(join(cacheFolder, made[0].name), join(dist, CACHE_FILE));
  // Not a secret: whoever runs an installed CLI reads it (the user cache stays private).
  chmodSync(join(dist, CACHE_FILE), 0o644);
  writeManifest({ file: CACHE_FILE, node: process.version, arch: process.arch });
  console.log(`dist/${CACHE_FILE}: code cache for Node ${process.version} (${process.arch})`);
} finally {
  await llm.close();
  rmSync(home, { recursive: true, force: true });
}
