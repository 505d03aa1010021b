import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import type { AppEnv } from "./context.js";

/**
 * One structured line per request: method, path (never the query string, which could carry
 * something secret), status, duration and the caller's user id. Headers and bodies are not
 * logged at all; the logger's redaction is the second line of defence.
 */
export function requestLog(logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const status = c.res.status;
    const line = {
      method: c.req.method,
      path: c.req.path,
      status,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
      user_id: c.get("auth")?.user.id,
    };
    if (status >= 500) logger.error(line, "request failed");
    else logger.info(line, "request");
  };
}
