import { isIP } from "node:net";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context.js";
import { jsonError } from "./errors.js";

/**
 * DNS rebinding: a page on `attacker.example` whose name the attacker re-points at 127.0.0.1
 * talks to this server as if it were its own origin, so neither the browser's same-origin rule
 * nor the CSRF check (which compares `Origin` with `Host`) stops it. What gives it away is the
 * `Host` header, which the browser fills with the name the page used. So a request is answered
 * only when its `Host` names this server:
 *
 * - an IP address (v4 or v6): reaching it involves no DNS answer an attacker could swap;
 * - `localhost` or a name under `.localhost`, which browsers resolve to loopback themselves;
 * - a name the operator allowed (`allowedHosts`), the host of an `allowedOrigins` entry, or the
 *   name the server listens on.
 *
 * The port is not compared: a rebound name still reaches this port only because the attacker's
 * page asked for it, and proxies may forward from another port.
 */
export class HostAllowList {
  readonly #names: ReadonlySet<string>;

  constructor(names: Iterable<string>) {
    const set = new Set<string>();
    for (const name of names) set.add(HostAllowList.normalizeName(name));
    this.#names = set;
  }

  /**
   * The host name of an `allowedHosts` entry (`penguin.example.com`, optionally with a port), in
   * lower case; throws a TypeError for anything else (a URL with a path, an empty name).
   */
  static normalizeName(entry: string): string {
    const hostname = hostnameOf(entry.trim());
    if (hostname === undefined) throw new TypeError(`allowed host "${entry}" is not a host name`);
    return hostname;
  }

  /** Whether a request whose `Host` header is `header` may be answered. */
  allows(header: string | undefined): boolean {
    if (header === undefined) return false;
    const hostname = hostnameOf(header);
    if (hostname === undefined) return false;
    if (isIP(hostname) !== 0 || isIP(hostname.replace(/^\[|\]$/g, "")) !== 0) return true;
    if (hostname === "localhost" || hostname.endsWith(".localhost")) return true;
    return this.#names.has(hostname);
  }
}

/** `name`, `name:port` or `[v6]:port` → the lower-case host name (v6 in brackets); undefined if malformed. */
function hostnameOf(value: string): string | undefined {
  if (value === "" || /[\s/\\?#@]/.test(value)) return undefined;
  try {
    const hostname = new URL(`http://${value}`).hostname;
    return hostname === "" ? undefined : hostname.toLowerCase().replace(/\.$/, "");
  } catch {
    return undefined;
  }
}

/** Refuses, with 421 `misdirected_request`, every request whose `Host` does not name this server. */
export function checkHost(allowList: HostAllowList): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!allowList.allows(c.req.header("host"))) {
      return jsonError(
        c,
        421,
        "misdirected_request",
        "this server does not answer for the host this request names; the operator can allow it with allowedHosts (--allowed-host)",
      );
    }
    return next();
  };
}
