import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect, test } from "vitest";

// The CLI bundles the workspace libraries into its dist, so every third-party package they use
// must be a dependency of the CLI itself, at the same version: otherwise tsup inlines it, and a
// CommonJS library inlined into the ESM bundle fails at run time ("Dynamic require of ... is not
// supported"), or the installed CLI cannot find it.
const packages = resolve(import.meta.dirname, "../..");
const manifest = (name: string) =>
  JSON.parse(readFileSync(join(packages, name, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };

test("the CLI depends on every third-party package of the libraries it bundles, at their versions", () => {
  const cli = manifest("cli").dependencies ?? {};
  const missing: string[] = [];
  for (const library of ["core", "protocol", "state", "trace"]) {
    for (const [name, version] of Object.entries(manifest(library).dependencies ?? {})) {
      if (name.startsWith("@penguin/")) continue;
      if (cli[name] !== version)
        missing.push(`${name}@${version} (from @penguin/${library}; cli has ${cli[name] ?? "none"})`);
    }
  }
  expect(missing).toEqual([]);
});
