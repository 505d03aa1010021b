// A private PostgreSQL for one benchmark run: initdb into a temp folder, 127.0.0.1 on a free port,
// password auth, durability off (the data lives as long as the run), removed at the end. The
// same recipe as the server's PostgreSQL test setup.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { chown, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { onCleanup } from "./cleanup.mjs";

const run = promisify(execFile);

/** The role the benchmark connects as (the cluster's superuser). */
const ROLE = "penguin";
/** Two instances open a pool of up to 10 each plus a notification connection; room to spare. */
const MAX_CONNECTIONS = 100;
/** `pg_ctl -w` waits this many seconds for the server to accept connections (a loaded machine). */
const START_TIMEOUT_S = 120;

/** The folder of initdb and pg_ctl: the newest version Debian installs, else the first on PATH. */
export function findPostgresBinaries() {
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const newest = readdirSync(root)
      .filter((version) => existsSync(join(root, version, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a))[0];
    if (newest !== undefined) return join(root, newest, "bin");
  }
  return (process.env.PATH ?? "")
    .split(delimiter)
    .find((dir) => dir !== "" && existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl")));
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function postgresUser() {
  const [uid, gid] = await Promise.all([run("id", ["-u", "postgres"]), run("id", ["-g", "postgres"])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * Starts PostgreSQL from the binaries in `bin` and returns its superuser URL; its stop (immediate)
 * and the removal of its folder are registered for cleanup.
 */
export async function startPrivatePostgres(bin) {
  // PostgreSQL refuses to run as root: run it as the `postgres` user the Debian package creates.
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? await postgresUser() : undefined;
  const command = (file, args) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", file, ...args]) : run(file, args);

  // The postgres user must reach the folder: /tmp, not a private TMPDIR of root's.
  const dir = await mkdtemp(join(asRoot ? "/tmp" : tmpdir(), "penguin-bench-pg-"));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  const data = join(dir, "data");
  const password = randomBytes(18).toString("hex");
  const passwordFile = join(dir, "password");
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  if (owner) {
    await chown(dir, owner.uid, owner.gid);
    await chown(passwordFile, owner.uid, owner.gid);
  }
  await command(join(bin, "initdb"), [
    "-D",
    data,
    "-U",
    ROLE,
    `--pwfile=${passwordFile}`,
    "--auth=scram-sha-256",
    "--encoding=UTF8",
    "--locale=C.UTF-8",
    "--no-sync",
  ]).catch((error) => {
    throw new Error(`initdb failed: ${error.stderr || error.message}`);
  });
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
  const pgCtl = join(bin, "pg_ctl");
  // Registered before the start: a start that times out may still leave a server running.
  onCleanup(() => command(pgCtl, ["stop", "-D", data, "-m", "immediate", "-w"]).catch(() => undefined));
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
  ]).catch((error) => {
    throw new Error(`PostgreSQL did not start: ${error.stderr || error.message}`);
  });
  return `postgres://${ROLE}:${password}@127.0.0.1:${port}/postgres`;
}

/**
 * Creates an empty database `name` on the server of `adminUrl` (a role allowed to create
 * databases), registers its drop for cleanup, and returns its URL and the drop (to run it now).
 */
export async function createBenchDatabase(adminUrl, name) {
  const { default: pg } = await import("pg");
  const asAdmin = async (statement) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await asAdmin(`create database "${name}"`);
  const drop = onCleanup(() => asAdmin(`drop database if exists "${name}" with (force)`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.href, drop };
}

/** How many of the sessions each instance holds: `{ [instance id]: count }`. */
export async function sessionOwners(databaseUrl) {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      "select owner_instance, count(*)::int as sessions from sessions group by owner_instance",
    );
    return Object.fromEntries(rows.map((row) => [row.owner_instance ?? "none", row.sessions]));
  } finally {
    await client.end();
  }
}
