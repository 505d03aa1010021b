import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

// Which packages a run loaded. The CLI's dist inlines some libraries (the workspace packages, and
// third-party ones it needs at start-up), so a loaded chunk is read through its source map: the
// packages its sources come from were loaded with it. Anything else loads from node_modules, or
// from a workspace package's own folder. A module of the one-file CLI (`dist/cli.cjs`) comes as
// `bundle:<path>`, the path the build gave it (see bundle-coverage.ts).

/** How a load log names a module the one-file CLI evaluated. */
export const BUNDLE_MODULE_PREFIX = "bundle:";

/** `openai` for `…/node_modules/openai/…`, `@scope/name` for a scoped package; the last match wins (pnpm's layout). */
function nodeModulesPackage(path: string): string | undefined {
  const matches = [...path.matchAll(/node_modules\/((?:@[^/]+\/)?[^/.][^/]*)/g)];
  return matches.at(-1)?.[1];
}

/**
 * `@penguin/core` for a source under `packages/core/src` (written `../../core/src/…` in the CLI's
 * maps), or a module of its `dist` (`../core/dist/…`, as the one-file CLI names it).
 */
function workspacePackage(source: string): string | undefined {
  const match = /(?:^|\/)\.\.\/(core|protocol|state|trace|server)\/(?:src|dist)\//.exec(source);
  return match ? `@penguin/${match[1]}` : undefined;
}

/**
 * `@penguin/server` for a file under `packages/server/`: Node loads a linked workspace package by
 * its real path, outside node_modules (the CLI's own chunks are read through their maps instead).
 */
function workspaceFilePackage(path: string): string | undefined {
  const match = /\/packages\/(core|protocol|state|trace|server)\//.exec(path);
  return match ? `@penguin/${match[1]}` : undefined;
}

function chunkPackages(file: string): string[] {
  const map = `${file}.map`;
  if (!existsSync(map)) return [];
  const { sources } = JSON.parse(readFileSync(map, "utf8")) as { sources: string[] };
  const packages: string[] = [];
  for (const source of sources) {
    const name = nodeModulesPackage(source) ?? workspacePackage(source);
    if (name) packages.push(name);
  }
  return packages;
}

/** The packages behind every module URL in a load log (one URL a line). */
export function loadedPackages(loads: string): Set<string> {
  const packages = new Set<string>();
  for (const url of new Set(loads.split("\n"))) {
    if (url.startsWith(BUNDLE_MODULE_PREFIX)) {
      const path = url.slice(BUNDLE_MODULE_PREFIX.length);
      const name = nodeModulesPackage(path) ?? workspacePackage(path);
      if (name) packages.add(name);
      continue;
    }
    if (!url.startsWith("file://")) continue;
    const path = fileURLToPath(url);
    const name = nodeModulesPackage(path) ?? workspaceFilePackage(path);
    if (name) packages.add(name);
    else for (const inlined of chunkPackages(path)) packages.add(inlined);
  }
  return packages;
}

/** The sources (as their source maps name them) of the CLI's chunks a load log shows were loaded. */
export function loadedChunkSources(loads: string): string[] {
  const sources: string[] = [];
  for (const url of new Set(loads.split("\n"))) {
    if (url.startsWith(BUNDLE_MODULE_PREFIX)) sources.push(url.slice(BUNDLE_MODULE_PREFIX.length));
    if (!url.startsWith("file://")) continue;
    const map = `${fileURLToPath(url)}.map`;
    if (!existsSync(map)) continue;
    sources.push(...(JSON.parse(readFileSync(map, "utf8")) as { sources: string[] }).sources);
  }
  return sources;
}
