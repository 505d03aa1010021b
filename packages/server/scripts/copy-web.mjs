#!/usr/bin/env node
// Copies the built web app (apps/web/dist) into dist/web, so the published server package
// carries the UI it serves (see src/web/serve-web.ts). turbo builds @penguin/web first
// (turbo.json: @penguin/server#build depends on @penguin/web#build).
import { cpSync, existsSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(packageDir, "..", "..", "apps", "web", "dist");
const target = join(packageDir, "dist", "web");

if (!existsSync(join(source, "index.html"))) {
  console.error(
    `copy-web: ${source}/index.html is missing. Build the web app first: pnpm turbo run build --filter=@penguin/server`,
  );
  process.exit(1);
}
rmSync(target, { recursive: true, force: true });
cpSync(source, target, { recursive: true });
console.log(`copy-web: ${source} -> ${target}`);
