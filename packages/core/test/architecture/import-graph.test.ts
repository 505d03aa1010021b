import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The shape the refactor of issue #13 left, kept by a test so it stays: the folders of core's
// src/ never import each other both ways, no module is part of an import loop, and no source
// file in the repository grows past 500 lines. Imports are read as text (`import … from`,
// `export … from`, `import("…")`), type-only ones included: a loop of types is still a loop a
// reader has to untangle.

const here = dirname(fileURLToPath(import.meta.url));
const coreSrc = resolve(here, "../../src");
const repoRoot = resolve(here, "../../../..");

/** "No file over 500 lines outside generated code" (issue #13, done when). */
const MAX_SOURCE_LINES = 500;

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...sourceFiles(path));
    else if (/\.(ts|tsx|mjs)$/.test(name) && !name.endsWith(".d.ts")) files.push(path);
  }
  return files;
}

const IMPORT_PATTERN = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["'](\.{1,2}\/[^"']+)["']/gm;

/** Each core module and the core modules it imports, by path relative to src/ (".ts" names). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(coreSrc)) {
    const from = relative(coreSrc, file);
    const targets: string[] = [];
    for (const match of readFileSync(file, "utf8").matchAll(IMPORT_PATTERN)) {
      const target = relative(coreSrc, resolve(dirname(file), match[1].replace(/\.js$/, ".ts")));
      targets.push(target);
    }
    graph.set(from, targets);
  }
  return graph;
}

const topFolder = (path: string) => (path.includes("/") ? path.split("/")[0] : ".");

/** Strongly connected components with more than one module (Tarjan), i.e. the import loops. */
function importLoops(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const loops: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) loops.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return loops;
}

describe("core's import graph", () => {
  const graph = importGraph();

  it("reads the imports it checks (a sanity floor, so an empty graph cannot pass)", () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get("sdk/agent.ts")?.length ?? 0).toBeGreaterThan(5);
  });

  it("has no two folders of src/ that import each other", () => {
    const edges = new Set<string>();
    for (const [from, targets] of graph) {
      for (const target of targets) {
        if (topFolder(from) !== topFolder(target)) edges.add(`${topFolder(from)} -> ${topFolder(target)}`);
      }
    }
    const bothWays = [...edges].filter((edge) => {
      const [a, b] = edge.split(" -> ");
      return edges.has(`${b} -> ${a}`);
    });
    expect(bothWays).toEqual([]);
  });

  it("has no import loop between modules", () => {
    expect(importLoops(graph)).toEqual([]);
  });
});

describe("source files", () => {
  it(`stay under ${MAX_SOURCE_LINES} lines in every package, app and tool`, () => {
    const roots = ["packages", "apps", "tooling"].flatMap((group) =>
      readdirSync(join(repoRoot, group)).map((name) => join(repoRoot, group, name, "src")),
    );
    const long = roots
      .filter((root) => statSync(root, { throwIfNoEntry: false })?.isDirectory())
      .flatMap(sourceFiles)
      .filter((file) => !file.includes("generated"))
      .map((file) => ({
        file: relative(repoRoot, file),
        lines: readFileSync(file, "utf8").split("\n").length,
      }))
      .filter(({ lines }) => lines > MAX_SOURCE_LINES);
    expect(long).toEqual([]);
  });
});
