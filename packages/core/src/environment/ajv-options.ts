/**
 * The options of every ajv that checks tool arguments: the compiler at run time and the generator
 * of the built-in tools' precompiled validators (scripts/gen-validators.ts), so both refuse the same
 * arguments with the same errors. Schemas come from user-editable config: unknown keywords are
 * tolerated, every error is reported (with its schema, `verbose`, which the messages read). Schemas
 * are not checked against the JSON Schema meta-schema when compiled (`validateSchema: false`):
 * compiling that costs ten times a tool's own schema on the first call, and the compiler itself
 * still refuses a known keyword with a value of the wrong type (`minimum: "abc"`,
 * `type: "strin"`). The check is made on the error paths only.
 */
export const AJV_OPTIONS = {
  allErrors: true,
  verbose: true,
  strict: false,
  validateFormats: false,
  validateSchema: false,
} as const;
