import { randomBytes, scryptSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "../src/index.js";

describe("password hashing", () => {
  it("stores scrypt parameters, a random salt and the key in the hash string", async () => {
    const hash = await hashPassword("hunter2hunter2");
    const [scheme, N, r, p, salt, key] = hash.split("$");
    expect(scheme).toBe("scrypt");
    expect(Number(N)).toBeGreaterThanOrEqual(2 ** 14);
    expect(Number(r)).toBe(8);
    expect(Number(p)).toBe(1);
    expect(Buffer.from(salt, "base64url")).toHaveLength(16);
    expect(Buffer.from(key, "base64url").length).toBeGreaterThanOrEqual(32);
    expect(hash).not.toContain("hunter2");
  });

  it("uses a new salt each time, so equal passwords have different hashes", async () => {
    const [a, b] = await Promise.all([hashPassword("same password"), hashPassword("same password")]);
    expect(a).not.toBe(b);
    expect(await verifyPassword("same password", a)).toBe(true);
    expect(await verifyPassword("same password", b)).toBe(true);
  });

  it("accepts the right password only", async () => {
    const hash = await hashPassword("open sesame");
    expect(await verifyPassword("open sesame", hash)).toBe(true);
    expect(await verifyPassword("open sesame ", hash)).toBe(false);
    expect(await verifyPassword("Open sesame", hash)).toBe(false);
    expect(await verifyPassword("", hash)).toBe(false);
  });

  it("verifies hashes made with other parameters, read from the string", async () => {
    const salt = randomBytes(16);
    const key = scryptSync("older hash", salt, 32, { N: 2 ** 12, r: 8, p: 1 });
    const hash = `scrypt$4096$8$1$${salt.toString("base64url")}$${key.toString("base64url")}`;
    expect(await verifyPassword("older hash", hash)).toBe(true);
    expect(await verifyPassword("other", hash)).toBe(false);
  });

  it("never matches a malformed or absurd stored hash", async () => {
    const good = await hashPassword("pw-pw-pw-pw");
    const parts = good.split("$");
    const variants = [
      "",
      "plain text",
      good.replace("scrypt$", "bcrypt$"),
      [...parts.slice(0, 5)].join("$"),
      ["scrypt", "1000", ...parts.slice(2)].join("$"), // N not a power of two
      ["scrypt", String(2 ** 30), ...parts.slice(2)].join("$"), // N far too large
      ["scrypt", parts[1], "0", ...parts.slice(3)].join("$"),
      [...parts.slice(0, 4), "", parts[5]].join("$"),
    ];
    for (const stored of variants) expect(await verifyPassword("pw-pw-pw-pw", stored)).toBe(false);
  });
});
