import { isAbsolute, resolve } from "node:path";

/**
 * Where the server keeps its index: the embedded SQLite file (the default) or a PostgreSQL
 * database that several server instances can share.
 */
export type DatabaseTarget = { kind: "sqlite"; file: string } | { kind: "postgres"; url: string };

/** The URL schemes PostgreSQL's own client (libpq) accepts, and so does the `pg` driver. */
export const POSTGRES_SCHEMES = ["postgres:", "postgresql:"] as const;

/** What replaces a password wherever a target is shown: the log, the terminal, an error. */
export const REDACTED = "***";

/** Query parameters of a connection string that carry a secret (libpq's names). */
const SECRET_PARAMETERS = ["password", "sslpassword"];

/** A `--database` value the server cannot use as written: the CLI reports it as a usage error. */
export class DatabaseTargetError extends Error {
  override readonly name = "DatabaseTargetError";
}

/**
 * The database could not be opened (unreachable, refused, wrong password, unknown database):
 * one line naming the target (password redacted) and the reason.
 */
export class DatabaseOpenError extends Error {
  override readonly name = "DatabaseOpenError";
  constructor(target: DatabaseTarget, error: unknown) {
    const secrets = databaseSecretValues(target);
    const reason = secrets.reduce((text, secret) => text.split(secret).join(REDACTED), reasonOf(error));
    super(`cannot open the database ${describeDatabaseTarget(target)}: ${reason}`, { cause: error });
  }
}

/**
 * One line saying why: the error's message, else its code, else its inner errors' (a connection
 * to `localhost` tries ::1 and 127.0.0.1 and fails with an AggregateError whose message is empty).
 */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { code } = error as NodeJS.ErrnoException;
  const inner = error instanceof AggregateError ? error.errors.map(reasonOf) : [];
  const text = error.message || inner.join("; ") || code || error.name;
  return text.replace(/\s*\n\s*/g, " ").trim();
}

/** `scheme://…` (RFC 3986 scheme, then two slashes); a Windows drive letter `C:\` is not one. */
const URL_WITH_SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*:)\/\//;

/**
 * Reads a `--database` value (or `PENGUIN_DATABASE_URL`): a `postgres://` or `postgresql://`
 * URL, or a file path for SQLite (relative paths resolve against `cwd`). Any other scheme, an
 * empty value or a URL that does not parse is a DatabaseTargetError saying what is accepted.
 */
export function parseDatabaseTarget(value: string, cwd: string = process.cwd()): DatabaseTarget {
  const text = value.trim();
  if (text === "") {
    throw new DatabaseTargetError(
      "--database takes a postgres:// URL or a SQLite file path, not an empty value",
    );
  }
  const scheme = URL_WITH_SCHEME.exec(text)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    return { kind: "sqlite", file: isAbsolute(text) ? text : resolve(cwd, text) };
  }
  if (!(POSTGRES_SCHEMES as readonly string[]).includes(scheme)) {
    throw new DatabaseTargetError(
      `--database supports PostgreSQL (postgres://user:password@host:5432/database) or a SQLite file path, not a ${scheme}// URL`,
    );
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // The value itself may hold a password: never repeat it.
    throw new DatabaseTargetError(
      "--database has a postgres:// URL that does not parse: use postgres://user:password@host:5432/database (percent-encode special characters in the password)",
    );
  }
  if (url.hostname === "" && !url.searchParams.has("host")) {
    throw new DatabaseTargetError(
      "--database needs a host in its postgres:// URL, e.g. postgres://user@db.example.com/penguin",
    );
  }
  return { kind: "postgres", url: text };
}

/**
 * The target as a person may see it: `SQLite /path/penguin.db`, or `PostgreSQL
 * postgres://user:***@host:5432/db` with the password (in the user part or the query) redacted.
 */
export function describeDatabaseTarget(target: DatabaseTarget): string {
  if (target.kind === "sqlite") return `SQLite ${target.file}`;
  return `PostgreSQL ${redactDatabaseUrl(target.url)}`;
}

/** The URL with its password replaced by `***`; a value that does not parse shows no more than its scheme. */
export function redactDatabaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${URL_WITH_SCHEME.exec(text)?.[1] ?? ""}//${REDACTED}`;
  }
  if (url.password !== "") url.password = REDACTED;
  for (const name of SECRET_PARAMETERS) {
    if (url.searchParams.has(name)) url.searchParams.set(name, REDACTED);
  }
  return url.href;
}

/**
 * The secret values of a target, as the log redactor takes them: the password as written in
 * the URL and decoded (the driver and its errors use the decoded one). None for SQLite.
 */
export function databaseSecretValues(target: DatabaseTarget): string[] {
  if (target.kind === "sqlite") return [];
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    return [];
  }
  const values = new Set<string>();
  const add = (value: string | null) => {
    if (value) values.add(value);
  };
  add(url.password);
  add(safeDecode(url.password));
  for (const name of SECRET_PARAMETERS) add(url.searchParams.get(name));
  return [...values];
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
