// The entry of `dist/cli.cjs`: the whole CLI in one CommonJS file, which `bin.cjs` compiles with
// V8's code cache (see launch/start-up-bundle.ts). The same command line as the ES module build.
import { join } from "node:path";
import { rememberCheckedConfigs } from "@penguin/state";
import { MANIFEST_FILE, readManifest } from "./launch/code-cache.js";
import { distDir } from "./launch/dist-dir.js";
import { runCli } from "./run-cli.js";

// This file holds all the code that checks a config (state's schemas, their refinements, zod), so
// its SHA-256, which the build wrote beside it, names that code: a config it checked is remembered
// beside the config file and taken as checked by its next start, which then builds no schema.
const manifest = readManifest(join(distDir(), MANIFEST_FILE));
if (manifest !== undefined) rememberCheckedConfigs(manifest.sha256);

runCli();
