import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { APPROVAL_MODES } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { THINKING_LEVELS } from "../src/system-config.js";

// "No constant or enum defined twice": each of these lists is written out once, as a `const`
// array in the lowest package that needs it, and everything else imports it (or derives from it).
// This scans the source of every package, app and tool for another literal copy.

const REPO = fileURLToPath(new URL("../../..", import.meta.url));

interface SingleList {
  name: string;
  values: readonly string[];
  /** The one file (relative to the repository) that writes the list out. */
  home: string;
  /** The type derived from it, declared there and nowhere else. */
  type: string;
}

const LISTS: SingleList[] = [
  {
    name: "APPROVAL_MODES",
    values: APPROVAL_MODES,
    home: "packages/protocol/src/common.ts",
    type: "ApprovalMode",
  },
  {
    name: "THINKING_LEVELS",
    values: THINKING_LEVELS,
    home: "packages/state/src/system-config.ts",
    type: "ThinkingLevel",
  },
];

const SOURCE_ROOTS = ["packages", "apps", "tooling"];
const SKIPPED_FOLDERS = new Set(["node_modules", "dist", "test", "tests", "e2e", "coverage", ".vitest"]);

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".") || SKIPPED_FOLDERS.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (/\.(?:ts|tsx|mts|cts|js|mjs)$/.test(entry.name) && !entry.name.endsWith(".d.ts"))
      files.push(path);
  }
  return files;
}

/** Runs of two or more string literals joined by `,` or `|`: array literals and union types. */
const LITERAL_RUN = /(?:"[^"\n]*"\s*[,|]\s*)+"[^"\n]*"/g;

/** Every place in `text` that writes out all of `values` as one array or union, in any order. */
function copiesIn(text: string, values: readonly string[]): number {
  let copies = 0;
  for (const run of text.matchAll(LITERAL_RUN)) {
    const written = new Set([...run[0].matchAll(/"([^"\n]*)"/g)].map((m) => m[1]));
    if (values.every((value) => written.has(value))) copies++;
  }
  return copies;
}

const files = SOURCE_ROOTS.flatMap((root) => sourceFiles(join(REPO, root))).map((path) => ({
  path: relative(REPO, path),
  text: readFileSync(path, "utf8"),
}));

describe("lists defined once", () => {
  it("finds the source files it scans", () => {
    expect(files.some((file) => file.path === "packages/core/src/index.ts")).toBe(true);
    expect(files.some((file) => file.path.startsWith("apps/web/src/"))).toBe(true);
  });

  for (const list of LISTS) {
    it(`${list.name} is written out only in ${list.home}`, () => {
      const found = files
        .map((file) => ({ path: file.path, copies: copiesIn(file.text, list.values) }))
        .filter((file) => file.copies > 0);
      expect(found).toEqual([{ path: list.home, copies: 1 }]);
    });

    it(`the type ${list.type} is declared only in ${list.home}`, () => {
      const declaration = new RegExp(`\\btype\\s+${list.type}\\s*=`);
      const found = files.filter((file) => declaration.test(file.text)).map((file) => file.path);
      expect(found).toEqual([list.home]);
    });
  }

  it("catches a copy in any order, as an array or as a union", () => {
    expect(copiesIn(`const x = ["max", "none", "low", "high", "medium"] as const;`, THINKING_LEVELS)).toBe(1);
    expect(
      copiesIn(`type T = "allow-all" | "deny-all" | "read-only" | "always-ask" | "plan";`, APPROVAL_MODES),
    ).toBe(1);
    expect(copiesIn(`const some = ["allow-all", "deny-all"];`, APPROVAL_MODES)).toBe(0);
  });
});
