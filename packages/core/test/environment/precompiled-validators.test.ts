import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import {
  applyCallDescription,
  applyWriteGuard,
  presetToolDefinitions,
  type ToolDefinitionConfig,
  writeGuardEnabled,
} from "@penguin/state";
import { describe, expect, test } from "vitest";
import { parse, stringify } from "yaml";
import {
  builtinToolSchemas,
  GENERATED_MODULE,
  generateValidatorsModule,
} from "../../scripts/gen-validators.js";
import { codePointLength } from "../../src/environment/code-point-length.js";
import { ArgumentsValidator, precompiledValidator } from "../../src/environment/validate-arguments.js";

// The built-in tools' argument validators are generated at build time (ajv's standalone code) and
// the compiler stays for every other schema: the model must read the same message either way.

type JsonSchema = Record<string, unknown>;

const PACKAGE_ROOT = join(import.meta.dirname, "../..");

/** The schema as a session gets it: through the agent's YAML file, then assembled. */
function sessionSchemas(
  preset: "core" | "extended",
): { name: string; schema: JsonSchema; withoutCallDescription: JsonSchema }[] {
  const written: ToolDefinitionConfig[] = parse(stringify(presetToolDefinitions(preset)));
  return written.map((definition) => {
    const guarded = writeGuardEnabled({ preset }) ? applyWriteGuard(definition) : definition;
    return {
      name: definition.name,
      schema: applyCallDescription(guarded).parameters as JsonSchema,
      withoutCallDescription: applyCallDescription({ ...guarded, call_description: false })
        .parameters as JsonSchema,
    };
  });
}

/** A value the property's declared type refuses. */
function wrongValue(property: JsonSchema): unknown {
  const type = property.type;
  if (type === "string") return 42;
  if (type === "array") return "not-an-array";
  if (type === "object") return ["not", "an", "object"];
  return "not-a-number-nor-boolean";
}

/** Bad arguments for a schema: none at all, an unknown one, each property of the wrong type, all of them wrong. */
function badArguments(schema: JsonSchema): Record<string, unknown>[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const eachWrong = Object.entries(properties).map(([name, property]) => ({ [name]: wrongValue(property) }));
  return [{}, { no_such_argument: true }, ...eachWrong, Object.assign({ no_such_argument: 1 }, ...eachWrong)];
}

describe("precompiled argument validators", () => {
  test("the checked-in module is what the generator makes from the current tool definitions", () => {
    const checkedIn = readFileSync(join(PACKAGE_ROOT, GENERATED_MODULE), "utf8");
    // Stale: run `pnpm --filter @penguin/state build && pnpm --filter @penguin/core gen:validators`.
    expect(checkedIn === generateValidatorsModule(), "precompiled-validators.generated.js is stale").toBe(
      true,
    );
  });

  for (const preset of ["core", "extended"] as const) {
    test(`every tool of the ${preset} preset, written to the agent's file and read back, has one`, async () => {
      const schemas = sessionSchemas(preset);
      expect(schemas.length).toBeGreaterThan(8);
      for (const { name, schema, withoutCallDescription } of schemas) {
        expect(await precompiledValidator(schema), name).toBeDefined();
        expect(
          await precompiledValidator(withoutCallDescription),
          `${name} without call description`,
        ).toBeDefined();
      }
    });
  }

  test("a schema that differs in anything has none, and is compiled at run time", async () => {
    const [{ schema }] = builtinToolSchemas();
    expect(await precompiledValidator(schema)).toBeDefined();
    expect(await precompiledValidator({ ...schema, $comment: "edited" })).toBeUndefined();
    const properties = schema.properties as Record<string, JsonSchema>;
    const [first] = Object.keys(properties);
    const edited = { ...schema, properties: { ...properties, [first]: { type: "number" } } };
    expect(await precompiledValidator(edited)).toBeUndefined();
    const validator = new ArgumentsValidator("edited_tool", edited);
    const refused = await validator.check(JSON.stringify({ [first]: "text" }));
    expect(refused.ok).toBe(false);
    if (!refused.ok)
      expect(refused.message).toContain(`argument "${first}" must be number, got string "text"`);
  });

  test("the precompiled and the compiled validator refuse the same arguments with the same message", async () => {
    let compared = 0;
    for (const { name, schema } of builtinToolSchemas()) {
      // `$comment` changes the hash and nothing else: this one is compiled by ajv at run time.
      const compiledSchema = { ...schema, $comment: "compiled at run time" };
      expect(await precompiledValidator(compiledSchema)).toBeUndefined();
      const precompiled = new ArgumentsValidator(name, schema);
      const compiled = new ArgumentsValidator(name, compiledSchema);
      for (const args of badArguments(schema)) {
        const text = JSON.stringify(args);
        const fromPrecompiled = await precompiled.check(text);
        const fromCompiled = await compiled.check(text);
        expect(fromPrecompiled, `${name} ${text}`).toEqual(fromCompiled);
        if (!fromPrecompiled.ok) compared++;
      }
    }
    // Each schema refuses at least its missing or unexpected arguments.
    expect(compared).toBeGreaterThan(builtinToolSchemas().length * 2);
  });

  test("a refusal names the argument and what was expected (precompiled)", async () => {
    const exec = sessionSchemas("core").find((tool) => tool.name === "exec_command");
    if (exec === undefined) throw new Error("exec_command is missing from the core preset");
    const validator = new ArgumentsValidator("exec_command", exec.schema);
    const result = await validator.check(JSON.stringify({ cmd: 5, yield_time_ms: "soon", extra: 1 }));
    expect(result).toEqual({
      ok: false,
      message: [
        "Invalid arguments for exec_command:",
        '- missing required argument "description" (string)',
        '- unexpected argument "extra"; allowed: description, cmd, workdir, yield_time_ms',
        '- argument "cmd" must be string, got integer 5',
        '- argument "yield_time_ms" must be integer, got string "soon"',
        "Fix the arguments and call exec_command again.",
      ].join("\n"),
    });
  });

  test("the generated module loads nothing from node_modules", () => {
    const checkedIn = readFileSync(join(PACKAGE_ROOT, GENERATED_MODULE), "utf8");
    expect(checkedIn).not.toMatch(/\brequire\(|createRequire|from "ajv/);
  });

  test("lengths count code points, as ajv's compiler does: an emoji is one character", async () => {
    const plan = builtinToolSchemas().find(
      ({ name, schema }) => name === "update_plan" && !(schema.required as string[]).includes("description"),
    );
    if (plan === undefined) throw new Error("update_plan's schema without call description is missing");
    const noteLimit = (plan.schema.properties as Record<string, JsonSchema>).note.maxLength as number;
    expect(noteLimit).toBeGreaterThan(0);
    const precompiled = new ArgumentsValidator("update_plan", plan.schema);
    const compiled = new ArgumentsValidator("update_plan", { ...plan.schema, $comment: "compiled" });
    const emoji = "\u{1F427}";
    for (const note of [
      emoji.repeat(noteLimit),
      `${emoji.repeat(noteLimit - 1)}\ud800`,
      emoji.repeat(noteLimit + 1),
    ]) {
      const text = JSON.stringify({ steps: [], note });
      expect(await precompiled.check(text)).toEqual(await compiled.check(text));
    }
    expect((await precompiled.check(JSON.stringify({ steps: [], note: emoji.repeat(noteLimit) }))).ok).toBe(
      true,
    );
    const over = await precompiled.check(JSON.stringify({ steps: [], note: emoji.repeat(noteLimit + 1) }));
    expect(over.ok).toBe(false);
  });
});

describe("codePointLength", () => {
  test("counts as ajv's helper does, lone and swapped surrogates included", () => {
    const ajvLength = createRequire(import.meta.url)("ajv/dist/runtime/ucs2length").default as (
      text: string,
    ) => number;
    const samples = [
      "",
      "plain",
      "\u{1F427}",
      "a\u{1F427}b\u{1F427}",
      "\ud800",
      "\udc00",
      "\udc00\ud800",
      "x\ud800",
      "\ud800\ud800\udc00",
      "é\u0301",
    ];
    for (const sample of samples)
      expect(codePointLength(sample), JSON.stringify(sample)).toBe(ajvLength(sample));
    expect(codePointLength("\u{1F427}\u{1F427}")).toBe(2);
    expect(codePointLength("\ud800x")).toBe(2);
  });
});
