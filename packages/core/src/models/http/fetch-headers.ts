/**
 * The header list of a request or response of the provider fetch (node-http-fetch.ts): the
 * `Headers` interface the provider SDKs read, kept in a Map. Node's own `Headers` is undici's,
 * and the first touch of any of undici's classes costs a start tens of milliseconds of compiling;
 * this one costs nothing to load.
 *
 * Fetch semantics (WHATWG Fetch, "Headers class"): names are case-insensitive and kept in lower
 * case; `append` joins a repeated name's values with ", "; iteration is sorted by name; values are
 * trimmed of leading and trailing whitespace; `set-cookie` is the one name whose values are kept
 * apart (`getSetCookie`).
 */

/** RFC 9110 §5.1: a field name is a token. */
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** RFC 9110 §5.5: a field value has no NUL, CR or LF (the fetch standard's "header value"). */
const FORBIDDEN_IN_VALUE = /[\0\r\n]/;
/** Fetch: "HTTP whitespace" stripped from both ends of a value. */
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

const SET_COOKIE = "set-cookie";

/** What a `RequestInit` may carry as headers: a `Headers`, name-value pairs, or a record (a value may be a list). */
export type FetchHeadersInit =
  | Headers
  | Iterable<readonly string[]>
  | Record<string, string | readonly string[]>;

function checkedName(name: string): string {
  if (!FIELD_NAME.test(name)) throw new TypeError(`invalid header name: ${JSON.stringify(name)}`);
  return name.toLowerCase();
}

function checkedValue(name: string, value: string): string {
  const trimmed = String(value).replace(EDGE_WHITESPACE, "");
  if (FORBIDDEN_IN_VALUE.test(trimmed)) throw new TypeError(`invalid value for header "${name}"`);
  return trimmed;
}

function isPairs(init: FetchHeadersInit): init is Iterable<readonly string[]> {
  return typeof (init as Iterable<unknown>)[Symbol.iterator] === "function";
}

export class FetchHeaders implements Headers {
  /** Lower-cased name -> its values in the order they were appended. */
  readonly #values = new Map<string, string[]>();

  constructor(init?: FetchHeadersInit) {
    if (init === undefined) return;
    if (isPairs(init)) {
      for (const pair of init) {
        if (pair.length !== 2) throw new TypeError("a header pair must have a name and a value");
        this.append(pair[0] as string, pair[1] as string);
      }
    } else {
      for (const [name, value] of Object.entries(init)) {
        if (typeof value === "string") this.append(name, value);
        else for (const item of value) this.append(name, item);
      }
    }
  }

  append(name: string, value: string): void {
    const key = checkedName(name);
    const checked = checkedValue(name, value);
    const list = this.#values.get(key);
    if (list) list.push(checked);
    else this.#values.set(key, [checked]);
  }

  set(name: string, value: string): void {
    this.#values.set(checkedName(name), [checkedValue(name, value)]);
  }

  delete(name: string): void {
    this.#values.delete(checkedName(name));
  }

  get(name: string): string | null {
    return this.#values.get(checkedName(name))?.join(", ") ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(checkedName(name));
  }

  getSetCookie(): string[] {
    return [...(this.#values.get(SET_COOKIE) ?? [])];
  }

  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [name, value] of this.entries()) callback.call(thisArg, value, name, this);
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name of [...this.#values.keys()].sort()) {
      const list = this.#values.get(name) ?? [];
      if (name === SET_COOKIE) for (const cookie of list) yield [name, cookie];
      else yield [name, list.join(", ")];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return "Headers";
  }
}
