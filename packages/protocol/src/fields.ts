import { z } from "zod";

/**
 * Field schemas that many message and event schemas share. A zod schema is immutable, so one
 * instance can be a field of any number of objects; each `z.string().min(1)` written out instead is
 * two more instances (and a check) built at the start of every program that imports this package.
 * Sharing these took the schemas the CLI builds before its first model request from 1,301 to 875
 * (docs/benchmarks.md section 11).
 */
export const anyString = z.string();
export const nonEmptyString = z.string().min(1);
export const optionalString = z.string().optional();
export const optionalNonEmptyString = nonEmptyString.optional();
export const nonNegativeInt = z.number().int().nonnegative();
export const optionalNonNegativeInt = nonNegativeInt.optional();
export const nonNegativeIntOrZero = nonNegativeInt.default(0);
export const optionalPositiveInt = z.number().int().positive().optional();
export const optionalNonNegativeNumber = z.number().nonnegative().optional();
export const anyBoolean = z.boolean();
export const anyValue = z.unknown();
