import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, test } from "vitest";

// What a user gets from the registry: each publishable package packed as pnpm publishes it
// (workspace:* rewritten to versions, only the `files` list inside), installed with plain npm
// into an empty folder, with no monorepo around it.

const repo = resolve(import.meta.dirname, "../../..");
const work = mkdtempSync(join(tmpdir(), "penguin-pack-"));
const tarballs = join(work, "tarballs");
const app = join(work, "app");

function publishablePackages(): string[] {
  const dir = join(repo, "packages");
  return readdirSync(dir)
    .map((name) => join(dir, name))
    .filter((p) => existsSync(join(p, "package.json")))
    .filter((p) => JSON.parse(readFileSync(join(p, "package.json"), "utf8")).private !== true);
}

describe("packed tarballs installed side by side", () => {
  beforeAll(async () => {
    mkdirSync(tarballs);
    mkdirSync(app);
    for (const pkg of publishablePackages()) {
      await execa("pnpm", ["pack", "--pack-destination", tarballs], { cwd: pkg });
    }
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
    const files = readdirSync(tarballs).map((f) => join(tarballs, f));
    await execa("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...files], {
      cwd: app,
      env: { npm_config_nodedir: existsSync("/usr/include/node/node.h") ? "/usr" : undefined },
    });
  }, 600_000);

  test("every publishable package was packed with its built files and no sources or tests", () => {
    const names = readdirSync(tarballs);
    expect(names.length).toBe(publishablePackages().length);
    for (const pkg of publishablePackages()) {
      const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
      const installed = join(app, "node_modules", manifest.name);
      expect(existsSync(join(installed, "dist", "index.js"))).toBe(true);
      expect(existsSync(join(installed, "dist", "index.d.ts"))).toBe(true);
      expect(existsSync(join(installed, "src"))).toBe(false);
      expect(existsSync(join(installed, "test"))).toBe(false);
      const packedManifest = readFileSync(join(installed, "package.json"), "utf8");
      expect(packedManifest).not.toContain("workspace:");
    }
  });

  test("the server package carries the built web app it serves", () => {
    const web = join(app, "node_modules", "@penguin", "server", "dist", "web");
    expect(existsSync(join(web, "index.html"))).toBe(true);
    expect(readdirSync(join(web, "assets")).some((f) => f.endsWith(".js"))).toBe(true);
  });

  test("the packages import and work together outside the monorepo", async () => {
    const script = `
      import { PROTOCOL_VERSION, parseEnvelopeLine, userText } from "@penguin/protocol";
      import { DEFAULT_TOOL_DEFINITIONS } from "@penguin/state";
      import { rebuildContext } from "@penguin/trace";
      import { createAgent, allowAll } from "@penguin/core";
      import { createRequire } from "node:module";
      const schema = createRequire(import.meta.url)("@penguin/protocol/schema.json");
      const line = JSON.stringify(userText("hi"));
      console.log(JSON.stringify({
        version: PROTOCOL_VERSION,
        parsed: parseEnvelopeLine(line).ok,
        tools: DEFAULT_TOOL_DEFINITIONS.length,
        rebuild: typeof rebuildContext,
        agent: typeof createAgent,
        approve: (await allowAll.decide({}, {})).decision,
        schema: typeof schema.$id,
      }));
    `;
    const r = await execa("node", ["--input-type=module", "-e", script], { cwd: app });
    expect(JSON.parse(r.stdout)).toEqual({
      version: 1,
      parsed: true,
      tools: 9,
      rebuild: "function",
      agent: "function",
      approve: "allow",
      schema: "string",
    });
  });

  test("the built-in tools' precompiled validators load in the install", async () => {
    // A module that failed to load would leave every schema to ajv's compiler without a word, so
    // each package's copy is imported here, as the CLI and the SDK import it on a first tool call.
    for (const pkg of ["cli", "core"]) {
      const dist = join(app, "node_modules", "@penguin", pkg, "dist");
      const [file] = readdirSync(dist).filter((name) =>
        /^precompiled-validators\.generated-.*\.js$/.test(name),
      );
      expect(file, `@penguin/${pkg}`).toBeDefined();
      const script = `const { validators } = await import(${JSON.stringify(join(dist, file))});
        const checks = [...validators.values()].map((validate) => validate({}));
        console.log(JSON.stringify({ size: validators.size, refused: checks.filter((ok) => ok === false).length }));`;
      const r = await execa("node", ["--input-type=module", "-e", script], { cwd: app });
      const loaded = JSON.parse(r.stdout) as { size: number; refused: number };
      expect(loaded.size, `@penguin/${pkg}`).toBeGreaterThan(30);
      // Most tools have required arguments: their validators refuse no arguments at all.
      expect(loaded.refused, `@penguin/${pkg}`).toBeGreaterThan(20);
    }
  });

  test("the installed penguin binary runs an offline replay session", async () => {
    const bin = join(app, "node_modules", ".bin", "penguin");
    const version = await execa(bin, ["--version"]);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);

    const workspace = mkdtempSync(join(tmpdir(), "penguin-pack-ws-"));
    const cassette = join(repo, "examples/quickstart.cassette.yaml");
    // The session gets an empty HOME of its own: only npm needs the real one. Its commands run
    // `bash -l`, and a machine's login profile (one that runs `pyenv rehash` waits up to a minute
    // on a lock a killed shell left behind) must not decide whether this test passes.
    const home = mkdtempSync(join(tmpdir(), "penguin-pack-home-"));
    const r = await execa(bin, ["run", "--model", `replay:${cassette}`, "-w", workspace, "-m", "fibonacci"], {
      env: { HOME: home, PENGUIN_HOME: join(work, "data"), NO_COLOR: "1" },
      reject: false,
    });
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("Done. `fib.js` prints");
    expect(r.stderr).toContain("sum: 88");
  });
});
