import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { execa } from "execa";
import { beforeAll, describe, expect, test } from "vitest";
import { REPO_ROOT } from "./helpers.js";

// What `npm install -g @penguin/cli` gives a user on a clean machine: the CLI's tarball ALONE,
// installed globally into an empty prefix, with no monorepo and no other @penguin package.

const work = mkdtempSync(join(tmpdir(), "penguin-cli-global-"));
const prefix = join(work, "prefix");
const bin = join(prefix, "bin", "penguin");

describe("the packed CLI installed alone with npm install -g", () => {
  let manifest: Record<string, Record<string, string> | undefined>;

  beforeAll(async () => {
    const pkg = resolve(import.meta.dirname, "..");
    await execa("pnpm", ["pack", "--pack-destination", work], { cwd: pkg });
    const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"));
    if (!tarball) throw new Error("pnpm pack wrote no tarball");
    await execa(
      "npm",
      [
        "install",
        "-g",
        "--prefix",
        prefix,
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        join(work, tarball),
      ],
      {
        env: { npm_config_nodedir: existsSync("/usr/include/node/node.h") ? "/usr" : undefined },
      },
    );
    const installed = join(prefix, "lib", "node_modules", "@penguin", "cli");
    manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
  }, 600_000);

  test("the manifest asks the registry for third-party libraries only", () => {
    const deps = Object.keys(manifest.dependencies ?? {});
    expect(deps.filter((d) => d.startsWith("@penguin/"))).toEqual([]);
    expect(deps).toEqual(expect.arrayContaining(["commander", "openai", "@anthropic-ai/sdk", "zod", "pino"]));
    expect(manifest.peerDependenciesMeta?.["@penguin/server"]).toEqual({ optional: true });
    expect(existsSync(join(prefix, "lib", "node_modules", "@penguin", "server"))).toBe(false);
  });

  test("penguin --version and an offline replay session run from the global prefix", async () => {
    const version = await execa(bin, ["--version"]);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);

    const workspace = mkdtempSync(join(tmpdir(), "penguin-cli-global-ws-"));
    const cassette = join(REPO_ROOT, "examples/quickstart.cassette.yaml");
    const r = await execa(bin, ["run", "--model", `replay:${cassette}`, "-w", workspace, "-m", "fibonacci"], {
      env: { PENGUIN_HOME: join(work, "data"), NO_COLOR: "1" },
      reject: false,
    });
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("Done. `fib.js` prints");
    expect(r.stderr).toContain("sum: 88");
  });

  test("penguin serve without @penguin/server says how to install it", async () => {
    // Without vitest's NODE_PATH, which names the monorepo's packages (@penguin/server among them):
    // a clean machine has none, and the CLI loads its optional packages with `require`, which reads it.
    const r = await execa(bin, ["serve", "--data-dir", join(work, "data")], {
      reject: false,
      env: { NODE_PATH: undefined },
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(
      /penguin serve needs the @penguin\/server package.*npm install -g @penguin\/server/,
    );
  });
});
