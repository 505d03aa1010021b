import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context.js";

/**
 * Every JSON answer is about one caller at one moment (their sessions, their tokens, a one-time
 * token secret): `no-store` keeps it out of browser and proxy caches, and `nosniff` stops a
 * browser from reading it as HTML or script whatever it contains.
 */
export function jsonResponseHeaders(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const type = c.res.headers.get("content-type") ?? "";
    if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) return;
    c.res.headers.set("Cache-Control", "no-store");
    c.res.headers.set("X-Content-Type-Options", "nosniff");
  };
}
