import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensurePrivateDir, writePrivateFile } from "../src/index.js";

const posix = process.platform !== "win32";
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "penguin-private-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const mode = async (path: string) => (await stat(path)).mode & 0o777;

describe.runIf(posix)("private files", () => {
  it("writes the file 0600 and creates missing parent folders 0700", async () => {
    const file = join(dir, "a", "b", "keys.yaml");
    await writePrivateFile(file, "api_key: sk-1\n");
    expect(await readFile(file, "utf8")).toBe("api_key: sk-1\n");
    expect(await mode(file)).toBe(0o600);
    expect(await mode(join(dir, "a"))).toBe(0o700);
    expect(await mode(join(dir, "a", "b"))).toBe(0o700);
  });

  it("tightens a replaced file that was world-readable and leaves no temporary file behind", async () => {
    const file = join(dir, "keys.yaml");
    await writeFile(file, "old", { mode: 0o644 });
    await writePrivateFile(file, "new");
    expect(await readFile(file, "utf8")).toBe("new");
    expect(await mode(file)).toBe(0o600);
    expect(await readdir(dir)).toEqual(["keys.yaml"]);
  });

  it("refuses to replace an existing file when overwrite is false", async () => {
    const file = join(dir, "agent.yaml");
    await writePrivateFile(file, "first", { overwrite: false });
    await expect(writePrivateFile(file, "second", { overwrite: false })).rejects.toMatchObject({
      code: "EEXIST",
    });
    expect(await readFile(file, "utf8")).toBe("first");
    expect(await readdir(dir)).toEqual(["agent.yaml"]);
  });

  it("keeps the mode of folders that already existed", async () => {
    await chmod(dir, 0o755);
    await ensurePrivateDir(join(dir, "x", "y"));
    expect(await mode(join(dir, "x"))).toBe(0o700);
    expect(await mode(join(dir, "x", "y"))).toBe(0o700);
    expect(await mode(dir)).toBe(0o755);
  });
});
