import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, test } from "vitest";
import {
  envelopeCheckSchema,
  GENERATED_MODULE,
  generateEnvelopeCheckModule,
} from "../scripts/gen-envelope-check.js";
import { isEnvelope } from "../src/envelope-check.generated.js";
import { envelopeError, parseEnvelope, parseEnvelopeLine } from "../src/index.js";
import { everyKind, viaJson, withField } from "./fixtures/every-kind.js";

// The trace checks every record it writes, and every line it reads, with the precompiled check
// of the JSON Schema of zod's output, and asks zod only about what the check refuses (parse.ts).
// A line the check accepts is returned as it was parsed, so the check must accept exactly what
// zod accepts and returns unchanged: these tests hold the two to the same verdict on a value of
// every kind the schema knows and on thousands of broken copies of them.

type JsonSchema = { [key: string]: unknown };

const PACKAGE_ROOT = join(import.meta.dirname, "..");
const ROOT = envelopeCheckSchema();

/**
 * The check's verdict and zod's, on a JSON copy of the value (as a trace line holds it): zod's is
 * whether it accepts the value and returns it unchanged (no default filled in, no field dropped).
 */
function verdicts(value: unknown): { check: boolean; zod: boolean } {
  const copy = value === undefined ? undefined : viaJson(value);
  const parsed = parseEnvelope(copy);
  return { check: isEnvelope(copy), zod: parsed.ok && isDeepStrictEqual(parsed.value, copy) };
}

function resolve(schema: JsonSchema): JsonSchema {
  const ref = schema.$ref;
  if (typeof ref !== "string") return schema;
  const name = ref.replace("#/$defs/", "");
  const target = (ROOT.$defs as Record<string, JsonSchema>)[name];
  if (target === undefined) throw new Error(`unresolved ${ref}`);
  return target;
}

/** A string the schema accepts. Only the patterns the protocol uses are known here. */
function stringSample(schema: JsonSchema): string {
  if (schema.pattern === "^[0-9a-f]{64}$") return "a".repeat(64);
  if (schema.pattern !== undefined) throw new Error(`no sample for the pattern ${String(schema.pattern)}`);
  return "x".repeat(Math.max(1, Number(schema.minLength ?? 1)));
}

function numberSample(schema: JsonSchema): number {
  if (typeof schema.minimum === "number") return schema.minimum;
  if (typeof schema.exclusiveMinimum === "number") return schema.exclusiveMinimum + 1;
  return 0;
}

/**
 * Values the schema accepts: one per branch of every union, and for an object one with all its
 * properties (each at its first sample) plus one per other sample of each property.
 */
function samplesOf(input: JsonSchema): unknown[] {
  const schema = resolve(input);
  const alternatives = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (alternatives !== undefined) return alternatives.flatMap(samplesOf);
  if ("const" in schema) return [schema.const];
  if (Array.isArray(schema.enum)) return schema.enum;
  if (Array.isArray(schema.type)) return schema.type.flatMap((type) => samplesOf({ ...schema, type }));
  switch (schema.type) {
    case "string":
      return [stringSample(schema)];
    case "integer":
    case "number":
      return [numberSample(schema)];
    case "boolean":
      return [true, false];
    case "null":
      return [null];
    case "array":
      return [[], ...samplesOf(schema.items as JsonSchema).map((item) => [item])];
    case "object":
      return objectSamples(schema);
    case undefined:
      return ["anything", 1, { nested: [] }];
    default:
      throw new Error(`no sample for the type ${String(schema.type)}`);
  }
}

function objectSamples(schema: JsonSchema): unknown[] {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
  const options = properties.map(([name, property]) => [name, samplesOf(property)] as const);
  const base: Record<string, unknown> = Object.fromEntries(
    options.map(([name, values]) => [name, values[0]]),
  );
  const extra = schema.additionalProperties as JsonSchema | undefined;
  const keys = schema.propertyNames as JsonSchema | undefined;
  if (properties.length === 0 && extra !== undefined && Object.keys(extra).length > 0) {
    const key = keys === undefined ? "key" : String(samplesOf(keys)[0]);
    return [{}, ...samplesOf(extra).map((value) => ({ [key]: value }))];
  }
  const variants = options.flatMap(([name, values]) =>
    values.slice(1).map((value) => ({ ...base, [name]: value })),
  );
  return [base, ...variants];
}

/** The paths of every value inside a JSON value, as `withField` takes them. */
function pathsOf(value: unknown, prefix = ""): string[] {
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    const path = prefix === "" ? key : `${prefix}.${key}`;
    return [path, ...pathsOf(inner, path)];
  });
}

/** What a broken writer might put in a field: a missing one, and a value of each JSON type. */
const REPLACEMENTS: unknown[] = [undefined, null, "", "x", -1, 0, 1.5, 2 ** 53, true, [], {}, ["x"]];

const SAMPLES = samplesOf(ROOT);

describe("the precompiled envelope check", () => {
  test("the checked-in module is what the generator makes from the current schemas", () => {
    const checkedIn = readFileSync(join(PACKAGE_ROOT, GENERATED_MODULE), "utf8");
    // Stale: run `pnpm --filter @penguin/protocol gen:envelope-check`.
    expect(checkedIn === generateEnvelopeCheckModule(), "envelope-check.generated.js is stale").toBe(true);
  });

  test("loads nothing: it runs in a browser as in Node", () => {
    const checkedIn = readFileSync(join(PACKAGE_ROOT, GENERATED_MODULE), "utf8");
    expect(checkedIn).not.toMatch(/\brequire\(|\bimport\b/);
  });

  test("marks every union of the protocol with its discriminator, so a record meets its own kind only", () => {
    const unions: JsonSchema[] = [];
    const visit = (node: unknown): void => {
      if (node === null || typeof node !== "object") return;
      if (!Array.isArray(node) && "oneOf" in node) unions.push(node as JsonSchema);
      for (const inner of Object.values(node)) visit(inner);
    };
    visit(ROOT);
    expect(unions.length).toBeGreaterThanOrEqual(3);
    for (const union of unions)
      expect(union.discriminator, JSON.stringify(union).slice(0, 120)).toBeDefined();
  });

  test("accepts every kind the builders make", () => {
    for (const [kind, message] of Object.entries(everyKind())) {
      expect(verdicts(message), kind).toEqual({ check: true, zod: true });
    }
  });

  test("accepts a value of every kind the schema knows, as zod does", () => {
    const kinds = new Set(
      SAMPLES.map((sample) => JSON.stringify((sample as { payload?: { type?: unknown } }).payload?.type)),
    );
    // Every payload kind of the protocol, model messages and events (one sample per branch at least).
    expect(kinds.size).toBeGreaterThan(Object.keys(everyKind()).length);
    for (const sample of SAMPLES)
      expect(verdicts(sample), JSON.stringify(sample)).toEqual({ check: true, zod: true });
  });

  test("gives zod's verdict on every field of every sample broken in every way", () => {
    let refused = 0;
    let compared = 0;
    for (const sample of SAMPLES) {
      for (const path of pathsOf(sample)) {
        for (const replacement of REPLACEMENTS) {
          const broken = withField(sample, path, replacement);
          const verdict = verdicts(broken);
          expect(verdict.check, `${path} = ${JSON.stringify(replacement)} in ${JSON.stringify(sample)}`).toBe(
            verdict.zod,
          );
          compared++;
          if (!verdict.zod) refused++;
        }
      }
    }
    // The sweep must break many values, not pass by accepting everything.
    expect(compared).toBeGreaterThan(5_000);
    expect(refused).toBeGreaterThan(compared / 3);
  });

  test("refuses what is not an object, as zod does", () => {
    for (const value of [undefined, null, 42, "envelope", [], [everyKind().user_text]]) {
      expect(verdicts(value)).toEqual({ check: false, zod: false });
    }
  });
});

describe("what zod would change", () => {
  test("a session_meta without protocol_version (written before versioning) goes to zod, which fills it in", () => {
    const meta = viaJson(everyKind().session_meta) as { payload: Record<string, unknown> };
    delete meta.payload.protocol_version;
    expect(isEnvelope(meta)).toBe(false);
    const parsed = parseEnvelopeLine(JSON.stringify(meta));
    expect(parsed.ok && parsed.value.type === "session_meta" && parsed.value.payload.protocol_version).toBe(
      1,
    );
  });

  test("a field zod drops (an unknown key of a left-out tool) goes to zod, which drops it", () => {
    const ready = withField(everyKind().mcp_connect_end, "payload.results", [
      {
        server: "docs",
        transport: "stdio",
        status: "completed",
        duration_ms: 5,
        left_out: [{ tool: "t", reason: "r", extra: 1 }],
      },
    ]);
    expect(isEnvelope(ready)).toBe(false);
    const parsed = parseEnvelopeLine(JSON.stringify(ready));
    expect(parsed.ok).toBe(true);
    expect(JSON.stringify(parsed.ok && parsed.value)).not.toContain("extra");
  });

  test("a line the check accepts is returned as it was written, field for field", () => {
    for (const [kind, message] of Object.entries(everyKind())) {
      const line = JSON.stringify(message);
      const parsed = parseEnvelopeLine(line);
      expect(parsed.ok && JSON.stringify(parsed.value), kind).toBe(line);
    }
  });
});

describe("envelopeError", () => {
  test("is undefined for a valid envelope and zod's first issue for a broken one", () => {
    expect(envelopeError(viaJson(everyKind().tool_call))).toBeUndefined();
    const broken = withField(everyKind().token_usage, "payload.request.total", -1);
    const parsed = parseEnvelope(broken);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(envelopeError(broken)).toEqual(parsed.error);
    expect(envelopeError(broken)?.path).toBe("payload.request.total");
  });
});
