import { existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/context.js";

/**
 * The built web app inside this package: the server's build copies `apps/web/dist` to
 * `dist/web` (scripts/copy-web.mjs), next to the bundle this module is compiled into. Undefined
 * when it is not there (running from the sources, or a build without the app): the server then
 * serves the API only.
 */
export function packagedWebRoot(): string | undefined {
  const root = fileURLToPath(new URL("./web/", import.meta.url));
  return existsSync(join(root, "index.html")) ? root : undefined;
}

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

/**
 * The app runs only its own bundled scripts and styles and talks only to this server; images in
 * a session may be data URLs or remote http(s) images the model or a tool referenced.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob: https: http:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** Vite names every file under assets/ by its content hash, so it never changes. */
const IMMUTABLE = "public, max-age=31536000, immutable";

function isApiPath(path: string): boolean {
  return path === "/api" || path.startsWith("/api/");
}

/**
 * Serves the web app from `root` at `/`: its files as they are, and `index.html` for every
 * other path without a file extension (the app routes in the browser). It answers only GET and
 * HEAD outside `/api`, before authentication: the files are public (the app itself shows the
 * login page), and every `/api` route stays behind the auth middleware, which this never reaches
 * for them. Paths are resolved inside `root` only; anything that would leave it is a 404.
 */
export function serveWeb(root: string): MiddlewareHandler<AppEnv> {
  const base = resolve(root);
  const indexFile = join(base, "index.html");

  async function fileResponse(file: string, method: string, cacheControl: string): Promise<Response> {
    const type = CONTENT_TYPES[extname(file).toLowerCase()] ?? "application/octet-stream";
    const headers: Record<string, string> = {
      "content-type": type,
      "cache-control": cacheControl,
      "x-content-type-options": "nosniff",
    };
    if (type.startsWith("text/html")) {
      headers["content-security-policy"] = CONTENT_SECURITY_POLICY;
      headers["referrer-policy"] = "same-origin";
    }
    const body = await readFile(file);
    headers["content-length"] = String(body.byteLength);
    return new Response(method === "HEAD" ? null : body, { status: 200, headers });
  }

  return async (c, next) => {
    const method = c.req.method;
    const path = c.req.path;
    if ((method !== "GET" && method !== "HEAD") || isApiPath(path)) return next();

    let relative: string;
    try {
      relative = decodeURIComponent(path);
    } catch {
      return c.text("not found", 404);
    }
    const file = resolve(base, `.${relative}`);
    if (relative.includes("\0") || (file !== base && !file.startsWith(base + sep))) {
      return c.text("not found", 404);
    }
    const info = await stat(file).catch(() => undefined);
    if (info?.isFile()) {
      const cache = relative.startsWith("/assets/") ? IMMUTABLE : "no-cache";
      return fileResponse(file, method, cache);
    }
    // A missing file with an extension is a broken link, not a page of the app.
    if (extname(relative) !== "") return c.text("not found", 404);
    return fileResponse(indexFile, method, "no-cache");
  };
}
