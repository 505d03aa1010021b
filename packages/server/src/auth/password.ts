import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from "node:crypto";

/**
 * scrypt parameters for new hashes: N = 2^15, r = 8, p = 1 (32 MiB and tens of milliseconds
 * per hash). They are stored in every hash string, so raising them later leaves old hashes
 * verifiable.
 */
export const SCRYPT_COST = 2 ** 15;
export const SCRYPT_BLOCK_SIZE = 8;
export const SCRYPT_PARALLELIZATION = 1;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Upper bounds accepted when reading a stored hash, so a corrupt row cannot make one check take minutes. */
const MAX_COST = 2 ** 20;
const MAX_BLOCK_SIZE = 32;
const MAX_PARALLELIZATION = 16;
const PREFIX = "scrypt";

function derive(password: string, salt: Buffer, options: ScryptOptions, keyBytes: number): Promise<Buffer> {
  // 128 * N * r bytes are needed; Node's default cap (32 MiB) is exactly N = 2^15, r = 8, so leave room.
  const maxmem = 256 * (options.N ?? SCRYPT_COST) * (options.r ?? SCRYPT_BLOCK_SIZE);
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFKC"), salt, keyBytes, { ...options, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** `scrypt$<N>$<r>$<p>$<salt base64url>$<key base64url>`, from a fresh 16-byte random salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const options = { N: SCRYPT_COST, r: SCRYPT_BLOCK_SIZE, p: SCRYPT_PARALLELIZATION };
  const key = await derive(password, salt, options, KEY_BYTES);
  return [
    PREFIX,
    options.N,
    options.r,
    options.p,
    salt.toString("base64url"),
    key.toString("base64url"),
  ].join("$");
}

interface ParsedHash {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

function parseHash(stored: string): ParsedHash | undefined {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== PREFIX) return undefined;
  const [N, r, p] = parts.slice(1, 4).map((part) => (/^\d{1,8}$/.test(part) ? Number(part) : Number.NaN));
  const salt = Buffer.from(parts[4], "base64url");
  const key = Buffer.from(parts[5], "base64url");
  const powerOfTwo = Number.isInteger(N) && N > 1 && (N & (N - 1)) === 0;
  if (
    !powerOfTwo ||
    N > MAX_COST ||
    !(r >= 1 && r <= MAX_BLOCK_SIZE) ||
    !(p >= 1 && p <= MAX_PARALLELIZATION)
  )
    return undefined;
  if (salt.length < 8 || key.length < 16) return undefined;
  return { N, r, p, salt, key };
}

/**
 * True when `password` matches `stored`. The comparison takes the same time wherever the keys
 * differ; a malformed stored hash never matches.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed) return false;
  const key = await derive(
    password,
    parsed.salt,
    { N: parsed.N, r: parsed.r, p: parsed.p },
    parsed.key.length,
  );
  return timingSafeEqual(key, parsed.key);
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends the time of one verification without a user, so that a login for an unknown username
 * takes as long as one with a wrong password and does not reveal which usernames exist.
 */
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummyHash ??= hashPassword(randomBytes(16).toString("base64url"));
  await verifyPassword(password, await dummyHash);
  return false;
}
