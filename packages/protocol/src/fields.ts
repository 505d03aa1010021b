import { z } from "zod";
import { onFirstUse } from "./on-first-use.js";

/** The schemas of this module, built on the first call (on-first-use.ts). */
export const fieldSchemas = onFirstUse(() => {
  // Field schemas that many message and event schemas share. A zod schema is immutable, so one
  // instance can be a field of any number of objects; each `z.string().min(1)` written out instead
  // is two more instances (and a check) built whenever the schemas are. Sharing these took the
  // schemas the CLI built before its first model request from 1,301 to 875 (docs/benchmarks.md
  // section 11), before they were built on first use at all.
  const anyString = z.string();
  const nonEmptyString = z.string().min(1);
  const optionalString = z.string().optional();
  const optionalNonEmptyString = nonEmptyString.optional();
  const nonNegativeInt = z.number().int().nonnegative();
  const optionalNonNegativeInt = nonNegativeInt.optional();
  const nonNegativeIntOrZero = nonNegativeInt.default(0);
  const optionalPositiveInt = z.number().int().positive().optional();
  const optionalNonNegativeNumber = z.number().nonnegative().optional();
  const anyBoolean = z.boolean();
  const anyValue = z.unknown();
  return {
    anyString,
    nonEmptyString,
    optionalString,
    optionalNonEmptyString,
    nonNegativeInt,
    optionalNonNegativeInt,
    nonNegativeIntOrZero,
    optionalPositiveInt,
    optionalNonNegativeNumber,
    anyBoolean,
    anyValue,
  };
});
