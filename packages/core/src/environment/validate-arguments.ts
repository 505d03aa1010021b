import { createRequire } from "node:module";
import { errorMessage } from "@penguin/protocol";
import type { Ajv2020, ErrorObject } from "ajv/dist/2020.js";
import { AJV_OPTIONS } from "./ajv-options.js";
import type { PrecompiledValidate } from "./precompiled-validators.generated.js";
import { schemaHash } from "./schema-hash.js";
import { MCP_TOOL_PREFIX } from "./tool-names.js";

// "Bad input (malformed tool arguments, unknown tool …) becomes a clear message that the model
// … can read and act on." Each message names the argument and what was expected, so the model
// can fix its next call without guessing.

export type ArgumentsCheck = { ok: true; args: Record<string, unknown> } | { ok: false; message: string };

type JsonSchema = Record<string, unknown>;

/**
 * A tool's validator, or why its schema is broken. `checked`: the schema is known to pass the
 * meta-schema (a precompiled one was checked when it was generated).
 */
type Compiled =
  | { validate: PrecompiledValidate; checked: boolean; error?: undefined }
  | { validate?: undefined; error: string };

/**
 * One validator per tool, made on the tool's first call: a session offers dozens of tools and
 * a task calls a few. A built-in tool's schema, as Penguin defines it, has a validator compiled
 * at build time (precompiled-validators.generated.js, found by the schema's hash), so its first
 * call loads neither ajv's compiler nor compiles anything. Any other schema (edited in the agent's
 * configuration, an MCP server's, an SDK custom tool's) is compiled by ajv, loaded then.
 */
export class ArgumentsValidator {
  private compiled: Compiled | undefined;

  constructor(
    private readonly toolName: string,
    private readonly schema: JsonSchema,
  ) {}

  private async compile(): Promise<Compiled> {
    if (this.compiled === undefined) {
      const precompiled = await precompiledValidator(this.schema);
      if (precompiled !== undefined) {
        this.compiled = { validate: precompiled, checked: true };
      } else {
        try {
          this.compiled = { validate: sharedAjv().compile(this.schema), checked: false };
        } catch (error) {
          this.compiled = { error: schemaFaults(this.schema) ?? errorMessage(error) };
        }
      }
    }
    return this.compiled;
  }

  /** Parses the model's argument text and checks it against the tool's schema. */
  async check(argumentsText: string): Promise<ArgumentsCheck> {
    const parsed = parseArguments(argumentsText);
    if (!parsed.ok)
      return { ok: false, message: `Invalid arguments for ${this.toolName}: ${parsed.message}` };
    let compiled = await this.compile();
    if (compiled.validate?.(parsed.args)) return parsed;
    // Arguments the schema refuses may be the schema's fault (`maxLength: -1` compiles and refuses
    // every string): the first refusal checks the schema against the meta-schema.
    if (compiled.validate !== undefined && !compiled.checked) {
      const faults = schemaFaults(this.schema);
      compiled = faults === undefined ? { ...compiled, checked: true } : { error: faults };
      this.compiled = compiled;
    }
    if (compiled.error !== undefined) {
      // An MCP tool's schema is the server's, not something the agent's configuration can fix.
      const origin = this.toolName.startsWith(MCP_TOOL_PREFIX)
        ? "the parameters schema its MCP server gave for it is invalid"
        : "its parameters schema in the agent's configuration is invalid";
      return {
        ok: false,
        message: `The ${this.toolName} tool cannot run: ${origin} (${compiled.error}).`,
      };
    }
    const problems = describeErrors(compiled.validate.errors ?? [], this.schema, parsed.args);
    return {
      ok: false,
      message: `Invalid arguments for ${this.toolName}:\n${problems.map((line) => `- ${line}`).join("\n")}\nFix the arguments and call ${this.toolName} again.`,
    };
  }
}

let precompiledTable: Promise<ReadonlyMap<string, PrecompiledValidate>> | undefined;

/**
 * The precompiled validator of a schema, if it is a built-in tool's as generated. The table (some
 * 150 KB of code) is imported on the first call of any tool, not with the SDK. Should it fail to
 * load (a broken install), every schema is compiled at run time instead.
 */
export async function precompiledValidator(schema: JsonSchema): Promise<PrecompiledValidate | undefined> {
  precompiledTable ??= import("./precompiled-validators.generated.js").then(
    (module) => module.validators,
    () => new Map<string, PrecompiledValidate>(),
  );
  return (await precompiledTable).get(schemaHash(schema));
}

let ajvInstance: Ajv2020 | undefined;

/**
 * ajv (CommonJS) is required when a schema without a precompiled validator is first used, rather
 * than imported with the SDK. Its options (shared with the generator) are in ajv-options.ts; the
 * meta-schema check is made on the error paths only (see `schemaFaults`).
 */
function sharedAjv(): Ajv2020 {
  if (ajvInstance === undefined) {
    const { Ajv2020: AjvClass } = createRequire(import.meta.url)(
      "ajv/dist/2020.js",
    ) as typeof import("ajv/dist/2020.js");
    ajvInstance = new AjvClass({ ...AJV_OPTIONS });
  }
  return ajvInstance;
}

/**
 * What the meta-schema finds wrong with a schema, each fault located
 * (`schema/properties/n/minimum must be number`), or undefined when it finds nothing. Only run once
 * a schema failed to compile or refused arguments: the compiler's own errors do not say where.
 */
function schemaFaults(schema: JsonSchema): string | undefined {
  const ajv = sharedAjv();
  try {
    if (ajv.validateSchema(schema) === true) return undefined;
  } catch {
    return undefined; // A `$schema` this ajv does not know: the compiler's message stands.
  }
  const faults = (ajv.errors ?? []).map(
    (error) => `schema${error.instancePath} ${error.message ?? "is invalid"}`,
  );
  return faults.length > 0 ? [...new Set(faults)].join(", ") : undefined;
}

function parseArguments(
  text: string,
): { ok: true; args: Record<string, unknown> } | { ok: false; message: string } {
  // Some models send "" for a call without arguments.
  if (text.trim() === "") return { ok: true, args: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = errorMessage(error);
    return {
      ok: false,
      message: `the arguments are not valid JSON (${reason}). Send one JSON object, e.g. {"name": "value"}.`,
    };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    return { ok: false, message: `the arguments must be a JSON object, got ${kind}.` };
  }
  return { ok: true, args: value as Record<string, unknown> };
}

/** `"file_path"` for `/file_path`, `"edits[0].text"` for `/edits/0/text`; the object itself is "the arguments". */
function argumentName(instancePath: string): string {
  if (instancePath === "") return "the arguments";
  const parts = instancePath
    .slice(1)
    .split("/")
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"));
  const name = parts.reduce(
    (path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part),
    "",
  );
  return `argument "${name}"`;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** A short, bounded rendering of a value the model sent. */
function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function valueAt(data: unknown, instancePath: string): unknown {
  if (instancePath === "") return data;
  let current: unknown = data;
  for (const raw of instancePath.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function expectedType(schema: JsonSchema, property: string): string {
  const declared = (schema.properties as Record<string, JsonSchema> | undefined)?.[property];
  const type = declared?.type;
  if (typeof type === "string") return ` (${type})`;
  if (Array.isArray(type)) return ` (${type.join(" or ")})`;
  return "";
}

function describeError(error: ErrorObject, rootSchema: JsonSchema, data: unknown): string {
  const name = argumentName(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required": {
      const missing = String(params.missingProperty);
      if (error.instancePath !== "") return `missing required property "${missing}" in ${name}`;
      return `missing required argument "${missing}"${expectedType(rootSchema, missing)}`;
    }
    case "additionalProperties": {
      const extra = String(params.additionalProperty);
      const allowed = Object.keys((error.parentSchema?.properties as JsonSchema | undefined) ?? {});
      const where = error.instancePath === "" ? "" : ` in ${name}`;
      return `unexpected argument "${extra}"${where}; allowed: ${allowed.length > 0 ? allowed.join(", ") : "none"}`;
    }
    case "type":
      return `${name} must be ${String(params.type)}, got ${typeOf(valueAt(data, error.instancePath))} ${preview(valueAt(data, error.instancePath))}`;
    case "enum":
      return `${name} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}, got ${preview(valueAt(data, error.instancePath))}`;
    case "const":
      return `${name} must be ${JSON.stringify(params.allowedValue)}, got ${preview(valueAt(data, error.instancePath))}`;
    default:
      return `${name} ${error.message ?? "is invalid"}${error.keyword === "minimum" || error.keyword === "maximum" || error.keyword.endsWith("Length") || error.keyword.endsWith("Items") ? `, got ${preview(valueAt(data, error.instancePath))}` : ""}`;
  }
}

function describeErrors(errors: ErrorObject[], schema: JsonSchema, data: unknown): string[] {
  const lines = errors.map((error) => describeError(error, schema, data));
  return [...new Set(lines)];
}
