import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { type RunningServer, type StartServerOptions, startServer } from "../src/index.js";
import { assertDocumentedResponse, checkResponsesAgainst, stopCheckingResponses } from "./openapi-check.js";
import { createTestPostgres, TEST_DATABASE } from "./postgres/test-database.js";

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** A fresh data root in the temp folder, removed after the test. */
export async function tempDataRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "penguin-server-test-"));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  return root;
}

const postgresByDataRoot = new Map<string, string>();

/**
 * The database of the test servers on `dataRoot`: undefined in the `sqlite` project (the data
 * root's own file), else a PostgreSQL database made for this data root on first use and
 * dropped after the test.
 */
export async function testDatabaseFor(dataRoot: string): Promise<string | undefined> {
  if (TEST_DATABASE === "sqlite") return undefined;
  const known = postgresByDataRoot.get(dataRoot);
  if (known) return known;
  const { url, drop } = await createTestPostgres(dataRoot);
  postgresByDataRoot.set(dataRoot, url);
  // Pushed before the servers' own cleanups, so it runs after they closed.
  cleanups.push(async () => {
    postgresByDataRoot.delete(dataRoot);
    await drop();
  });
  return url;
}

/**
 * A real server on 127.0.0.1, a free port, over a real database (the data root's SQLite file,
 * or a PostgreSQL database of its own in the `postgres` project); closed after the test.
 */
export async function startTestServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const dataRoot = options.dataRoot ?? (await tempDataRoot());
  const database = options.database ?? (await testDatabaseFor(dataRoot));
  const server = await startServer({ port: 0, ...options, dataRoot, ...(database ? { database } : {}) });
  // Every answer this server gives through `request` or `SseClient` is checked against its document.
  checkResponsesAgainst(server.url, server.openApiDocument());
  cleanups.push(async () => {
    stopCheckingResponses(server.url);
    await server.close();
  });
  return server;
}

export interface RequestOptions {
  method?: string;
  /** Sent as JSON with `Content-Type: application/json`. */
  json?: unknown;
  /** The session cookie value. */
  cookie?: string;
  bearer?: string;
  /** Default: the server's own origin when a cookie is sent; `null` sends none. */
  origin?: string | null;
  headers?: Record<string, string>;
  body?: RequestInit["body"];
}

/** `fetch` against the server, with the credentials and headers a browser or API client would send. */
export async function request(
  baseUrl: string,
  path: string,
  options: RequestOptions = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.json !== undefined) headers["content-type"] = "application/json";
  if (options.cookie !== undefined) headers.cookie = `penguin_session=${options.cookie}`;
  if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`;
  const origin =
    options.origin === undefined ? (options.cookie !== undefined ? baseUrl : null) : options.origin;
  if (origin !== null) headers.origin = origin;
  const url = new URL(path, baseUrl);
  const method = options.method ?? (options.json !== undefined ? "POST" : "GET");
  const response = await fetch(url, {
    method,
    headers,
    body: options.json !== undefined ? JSON.stringify(options.json) : options.body,
  });
  await assertDocumentedResponse(method, url.href, response);
  return response;
}

/** The value of the session cookie set by a login response. */
export function sessionCookieFrom(response: Response): string {
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith("penguin_session="));
  if (!cookie) throw new Error(`no session cookie in ${JSON.stringify(response.headers.getSetCookie())}`);
  return cookie.slice("penguin_session=".length).split(";")[0];
}

export async function login(baseUrl: string, username: string, password: string): Promise<string> {
  const response = await request(baseUrl, "/api/auth/login", { json: { username, password } });
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${await response.text()}`);
  return sessionCookieFrom(response);
}

export const ADMIN_PASSWORD = "correct horse battery staple";

/** Logs in as the bootstrap admin and replaces the initial password; returns a fresh session cookie. */
export async function adminSession(server: RunningServer): Promise<string> {
  if (!server.initialAdmin) throw new Error("the server has no initial admin password");
  const first = await login(server.url, "admin", server.initialAdmin.password);
  const changed = await request(server.url, "/api/auth/password", {
    cookie: first,
    json: { current_password: server.initialAdmin.password, new_password: ADMIN_PASSWORD },
  });
  if (changed.status !== 204)
    throw new Error(`password change failed: ${changed.status} ${await changed.text()}`);
  return first;
}

/** Creates a user as admin and has them choose their own password; returns their session cookie. */
export async function memberSession(
  server: RunningServer,
  adminCookie: string,
  username: string,
  password = `${username}-password-1`,
): Promise<string> {
  const initial = `${username}-initial-1`;
  const created = await request(server.url, "/api/users", {
    cookie: adminCookie,
    json: { username, password: initial },
  });
  if (created.status !== 201)
    throw new Error(`user creation failed: ${created.status} ${await created.text()}`);
  const cookie = await login(server.url, username, initial);
  const changed = await request(server.url, "/api/auth/password", {
    cookie,
    json: { current_password: initial, new_password: password },
  });
  if (changed.status !== 204) throw new Error(`password change failed: ${changed.status}`);
  return cookie;
}

/** The JSON body of a response, typed by the test that reads it. */
export async function readJson<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

export interface UserBody {
  user: { id: string; username: string; role: string; must_change_password: boolean; created_at: string };
}

export interface ErrorBody {
  error: string;
  message?: string;
  issues?: { path: string; message: string }[];
}
