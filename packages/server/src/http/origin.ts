import type { Context } from "hono";

/**
 * CSRF rule: a state-changing request that a browser authenticates with the session cookie must
 * carry an `Origin` header naming this server. Browsers always send `Origin` on cross-origin
 * requests and on every non-GET `fetch`, and a page cannot forge it, so a request from another
 * site is refused even by a browser that would ignore `SameSite=Strict`. Bearer-token requests
 * are exempt (a browser never attaches a bearer token by itself).
 *
 * "This server" is an origin whose host (name and port) equals the request's `Host` header,
 * whatever the scheme — so it also holds behind a TLS-terminating proxy that keeps `Host` — or
 * one of the configured `allowedOrigins` (for proxies that rewrite `Host`).
 */
export type OriginVerdict = "same-origin" | "missing" | "foreign";

export const UNSAFE_METHODS: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export function checkOrigin(c: Context, allowedOrigins: ReadonlySet<string>): OriginVerdict {
  const origin = c.req.header("origin");
  if (origin === undefined || origin === "") return "missing";
  if (allowedOrigins.has(origin)) return "same-origin";
  const host = c.req.header("host");
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    // "null" (sandboxed frames, file: pages) and garbage.
    return "foreign";
  }
  return host !== undefined && originHost !== "" && originHost === host.toLowerCase()
    ? "same-origin"
    : "foreign";
}
