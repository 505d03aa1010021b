/** ajv's standalone check of an envelope against the protocol's JSON Schema: true when it is one. */
export declare function isEnvelope(value: unknown): boolean;
