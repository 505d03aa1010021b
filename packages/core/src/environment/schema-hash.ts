import { createHash } from "node:crypto";

// A tool's argument schema named by its content: the precompiled validators are looked up by this
// hash, so a schema that differs in any way (an edited config, an MCP server's) finds none and is
// compiled at run time instead.

/** JSON with every object's keys sorted: the same schema gives the same text whatever its key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The sha256 (hex) of a schema's canonical JSON. */
export function schemaHash(schema: unknown): string {
  return createHash("sha256").update(canonicalJson(schema)).digest("hex");
}
