import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger, logsDir, REDACTED, redactSecrets } from "../src/index.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "penguin-logs-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const API_KEY = "sk-live-0123456789abcdef";

describe("createLogger", () => {
  it("writes JSON lines to the data root's logs folder, file 0600 and folder 0700", async () => {
    const logger = createLogger({ root });
    logger.info({ session: "s1" }, "session started");
    const file = join(logsDir(root), "penguin.log");
    const [line] = (await readFile(file, "utf8")).trim().split("\n");
    expect(JSON.parse(line)).toMatchObject({ level: 30, session: "s1", msg: "session started" });
    if (process.platform !== "win32") {
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect((await stat(dirname(file))).mode & 0o777).toBe(0o700);
    }
  });

  it("redacts key, token, cookie and password fields at any of the first levels", async () => {
    const file = join(root, "custom", "app.log");
    const logger = createLogger({ file, level: "debug" });
    logger.debug(
      {
        apiKey: API_KEY,
        provider: {
          api_key: API_KEY,
          options: { headers: { authorization: `Bearer ${API_KEY}`, "x-api-key": API_KEY } },
        },
        request: { headers: { cookie: `sid=${API_KEY}` } },
        user: { password: API_KEY, token: API_KEY },
      },
      "request sent",
    );
    const text = await readFile(file, "utf8");
    expect(text).not.toContain(API_KEY);
    const record = JSON.parse(text);
    expect(record.apiKey).toBe(REDACTED);
    expect(record.provider.options.headers.authorization).toBe(REDACTED);
    expect(record.provider.options.headers["x-api-key"]).toBe(REDACTED);
    expect(record.request.headers.cookie).toBe(REDACTED);
    expect(record.user).toEqual({ password: REDACTED, token: REDACTED });
  });

  it("scrubs configured secret values from messages, fields and errors", async () => {
    const file = join(root, "app.log");
    const logger = createLogger({ file, secrets: [API_KEY] });
    logger.error(
      { err: new Error(`401 for key ${API_KEY}`), note: [`key=${API_KEY}`] },
      `auth failed with ${API_KEY}`,
    );
    const text = await readFile(file, "utf8");
    expect(text).not.toContain(API_KEY);
    const record = JSON.parse(text);
    expect(record.msg).toBe(`auth failed with ${REDACTED}`);
    expect(record.note).toEqual([`key=${REDACTED}`]);
    expect(record.err.message).toBe(`401 for key ${REDACTED}`);
  });

  it.runIf(process.platform !== "win32")("tightens an existing log file that others could read", async () => {
    const file = join(root, "old.log");
    await writeFile(file, "", { mode: 0o644 });
    createLogger({ file }).info("x");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it("honours the level", async () => {
    const file = join(root, "quiet.log");
    const logger = createLogger({ file, level: "warn" });
    logger.info("hidden");
    logger.warn("shown");
    const lines = (await readFile(file, "utf8")).trim().split("\n");
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(["shown"]);
  });
});

describe("redactSecrets", () => {
  it("replaces the longer secret before a shorter one it contains", () => {
    expect(redactSecrets("a=abc123 b=abc", ["abc", "abc123"])).toBe(`a=${REDACTED} b=${REDACTED}`);
    expect(redactSecrets("nothing here", ["", "zzz"])).toBe("nothing here");
  });
});
