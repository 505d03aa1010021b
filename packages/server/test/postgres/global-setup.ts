import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { chown, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";
import { ADMIN_URL_KEY } from "./provided.js";

/**
 * vitest global setup of the `postgres` project: a private PostgreSQL for the run, on 127.0.0.1
 * and a free port, with password auth, in a temp folder removed at the end. Durability is off
 * (fsync, synchronous commit): the data lives as long as the run. PENGUIN_TEST_POSTGRES_URL
 * names a server to use instead (a role allowed to create databases).
 */

const run = promisify(execFile);

/** The role the tests connect as (the cluster's superuser). */
const ROLE = "penguin";
/** Each test server opens a pool of up to 10; several test files run at once. */
const MAX_CONNECTIONS = 200;
/** `pg_ctl -w` waits this many seconds for the server to accept connections (a loaded machine). */
const START_TIMEOUT_S = 120;

/** initdb of the newest PostgreSQL Debian installs, else the one on PATH. */
function postgresBinDir(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((name) => existsSync(join(root, name, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(root, versions[0], "bin");
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run("id", ["-u", "postgres"]), run("id", ["-g", "postgres"])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const external = process.env.PENGUIN_TEST_POSTGRES_URL;
  if (external) {
    project.provide(ADMIN_URL_KEY, external);
    return undefined;
  }
  const bin = postgresBinDir();
  const initdb = bin ? join(bin, "initdb") : "initdb";
  const pgCtl = bin ? join(bin, "pg_ctl") : "pg_ctl";
  // PostgreSQL refuses to run as root: run it as the `postgres` user the Debian package creates.
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? await postgresUser() : undefined;
  const command = (file: string, args: string[]) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", file, ...args]) : run(file, args);

  // The test workers' TMPDIR is a private folder of root's; the postgres user must reach this one.
  const dir = await mkdtemp(join(asRoot ? "/tmp" : tmpdir(), "penguin-pg-"));
  const data = join(dir, "data");
  const password = randomBytes(18).toString("hex");
  const passwordFile = join(dir, "password");
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  if (owner) {
    await chown(dir, owner.uid, owner.gid);
    await chown(passwordFile, owner.uid, owner.gid);
  }
  try {
    await command(initdb, [
      "-D",
      data,
      "-U",
      ROLE,
      `--pwfile=${passwordFile}`,
      "--auth=scram-sha-256",
      "--encoding=UTF8",
      "--locale=C.UTF-8",
      "--no-sync",
    ]);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    const { code, stderr } = error as NodeJS.ErrnoException & { stderr?: string };
    throw new Error(
      code === "ENOENT"
        ? "PostgreSQL is not installed (no initdb): install the postgresql package, set PENGUIN_TEST_POSTGRES_URL, or PENGUIN_TEST_POSTGRES=off to skip the postgres tests"
        : `initdb failed: ${stderr ?? (error as Error).message}`,
    );
  }
  const port = await freePort();
  const settings = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${dir}`,
    `-c max_connections=${MAX_CONNECTIONS}`,
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
  ].join(" ");
  try {
    await command(pgCtl, [
      "start",
      "-D",
      data,
      "-w",
      "-t",
      String(START_TIMEOUT_S),
      "-l",
      join(dir, "log"),
      "-o",
      settings,
    ]);
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    await rm(dir, { recursive: true, force: true });
    throw new Error(`the test PostgreSQL did not start: ${stderr ?? (error as Error).message}`);
  }
  project.provide(ADMIN_URL_KEY, `postgres://${ROLE}:${password}@127.0.0.1:${port}/postgres`);
  return async () => {
    await command(pgCtl, ["stop", "-D", data, "-m", "immediate", "-w"]).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };
}
