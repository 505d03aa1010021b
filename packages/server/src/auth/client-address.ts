import { isIP } from "node:net";
import type { Context } from "hono";

/** The key of requests whose socket address is unknown (an app driven without a socket). */
export const UNKNOWN_CLIENT = "unknown";

/** `::ffff:192.0.2.1` is an IPv4 client on a dual-stack socket: the same client as `192.0.2.1`. */
function unmapIpv4(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped ? mapped[1] : address;
}

/** The eight 16-bit groups of an IPv6 address, or undefined when it is not one. */
function ipv6Groups(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address.replace(/%.*$/, "");
  // A trailing dotted IPv4 part counts as two groups.
  const dotted = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const parse = (part: string) =>
    part === "" ? [] : part.split(":").map((group) => Number.parseInt(group, 16));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  const zeros = tail === undefined ? 0 : 8 - front.length - back.length;
  return [...front, ...Array<number>(zeros).fill(0), ...back];
}

/** A normalized address: IPv4-mapped IPv6 unwrapped, IPv6 in its full lowercase form. */
export function normalizeAddress(address: string): string {
  const plain = unmapIpv4(address.trim());
  const groups = ipv6Groups(plain);
  return groups ? groups.map((group) => group.toString(16)).join(":") : plain;
}

/**
 * The throttling key of an address: IPv4 as is, IPv6 by its /64 prefix (one host usually holds a
 * whole /64, so counting single addresses would let it rotate through 2^64 of them).
 */
export function addressKey(address: string): string {
  const plain = unmapIpv4(address.trim());
  const groups = ipv6Groups(plain);
  return groups
    ? `${groups
        .slice(0, 4)
        .map((group) => group.toString(16))
        .join(":")}::/64`
    : plain;
}

/** The peer address of the request's socket (`@hono/node-server` passes the Node request as env). */
function socketAddress(c: Context): string | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress;
}

/**
 * The address a request comes from, as a throttling key. `X-Forwarded-For` is anyone's to write,
 * so it is read only when the socket's peer is one of `trustedProxies`; then the client is the
 * rightmost entry that is not itself a trusted proxy (entries further left were written by the
 * client and prove nothing).
 */
export function clientAddressKey(c: Context, trustedProxies: ReadonlySet<string>): string {
  const peer = socketAddress(c);
  if (peer === undefined) return UNKNOWN_CLIENT;
  let client = normalizeAddress(peer);
  if (trustedProxies.has(client)) {
    const hops = (c.req.header("x-forwarded-for") ?? "")
      .split(",")
      .map((hop) => hop.trim())
      .filter((hop) => hop !== "");
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = normalizeAddress(hops[i]);
      if (isIP(hop) === 0) break;
      client = hop;
      if (!trustedProxies.has(hop)) break;
    }
  }
  return addressKey(client);
}

/** The set `clientAddressKey` compares against: every trusted proxy address, normalized. */
export function trustedProxySet(addresses: readonly string[] = []): ReadonlySet<string> {
  const set = new Set<string>();
  for (const address of addresses) {
    const normalized = normalizeAddress(address);
    if (isIP(normalized) === 0) {
      throw new TypeError(
        `trusted proxy "${address}" is not an IP address (host names and ranges are not accepted)`,
      );
    }
    set.add(normalized);
  }
  return set;
}
