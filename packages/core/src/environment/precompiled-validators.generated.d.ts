import type { ErrorObject } from "ajv/dist/2020.js";

/** A validator of ajv's standalone code: true or false, and the errors of the last refusal. */
export interface PrecompiledValidate {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** The built-in tools' argument validators, by the sha256 of their schema's canonical JSON. */
export declare const validators: ReadonlyMap<string, PrecompiledValidate>;
