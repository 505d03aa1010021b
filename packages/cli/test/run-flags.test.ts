import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { penguin, REPO_ROOT, tempDir } from "./helpers.js";

const CASSETTE = join(REPO_ROOT, "examples/quickstart.cassette.yaml");

/** `penguin run` on the offline quickstart cassette with `extra` flags, in a fresh data root. */
async function runWith(extra: string[]) {
  const dataRoot = tempDir("data");
  const r = await penguin(
    ["run", "--model", `replay:${CASSETTE}`, "-w", tempDir("ws"), "-m", "fib", ...extra],
    {
      env: { PENGUIN_HOME: dataRoot },
    },
  );
  return { ...r, dataRoot };
}

describe("penguin run --record to a path that cannot be written", () => {
  test("a file where a folder should be is one usage line (exit 2), and no session is started", async () => {
    const file = join(tempDir("rec"), "plain-file");
    writeFileSync(file, "not a folder\n");
    const r = await runWith(["--record", join(file, "x.yaml")]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toBe(
      `penguin: cannot write cassette ${join(file, "x.yaml")}: ${file} is not a folder`,
    );
    expect(existsSync(join(r.dataRoot, "traces"))).toBe(false);
  });

  test("a path that is a folder is one usage line (exit 2)", async () => {
    const dir = join(tempDir("rec"), "a-folder");
    mkdirSync(dir);
    const r = await runWith(["--record", dir]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`penguin: cannot write cassette ${dir}: it is a folder`);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(existsSync(join(r.dataRoot, "traces"))).toBe(false);
  });

  test("missing folders on the way are created, as before", async () => {
    const cassette = join(tempDir("rec"), "new", "deeper", "run.yaml");
    const r = await runWith(["--record", cassette]);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.exitCode).toBe(0);
    expect(existsSync(cassette)).toBe(true);
  });
});

describe("--resume keeps the session's own model and workspace", () => {
  test.each([
    ["run", "--model", "openai/gpt-5"],
    ["run", "--workspace", "."],
    ["run", "-w", "."],
    ["chat", "--model", "openai/gpt-5"],
    ["chat", "--workspace", "."],
  ])("%s --resume with %s is a usage error, not silently ignored", async (command, flag, value) => {
    const prompt = command === "run" ? ["-m", "hi"] : [];
    const r = await penguin([command, "--resume", "20990101-000000-abcdef", flag, value, ...prompt], {
      env: { PENGUIN_HOME: tempDir("data") },
    });
    expect(r.exitCode).toBe(2);
    const name = flag === "-w" ? "--workspace" : flag;
    expect(r.stderr.trim()).toBe(
      `penguin: ${name} cannot be used with --resume: a resumed session keeps its own model and workspace`,
    );
  });

  test("$PENGUIN_MODEL is a default for new sessions and does not stop a resume", async () => {
    const r = await penguin(["run", "--resume", "20990101-000000-abcdef", "-m", "hi"], {
      env: { PENGUIN_HOME: tempDir("data"), PENGUIN_MODEL: "openai/gpt-5" },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/no session 20990101-000000-abcdef/);
  });
});

describe("penguin run --attach", () => {
  test("a folder is a usage error (exit 2) before any session starts", async () => {
    const folder = tempDir("attach");
    const r = await runWith(["--attach", folder]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toBe(`penguin: cannot attach ${folder}: it is a folder; attach a file`);
    expect(existsSync(join(r.dataRoot, "traces"))).toBe(false);
  });

  test("a device is not a regular file either", async () => {
    const r = await runWith(["--attach", "/dev/null"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("cannot attach /dev/null: it is not a regular file");
  });
});
