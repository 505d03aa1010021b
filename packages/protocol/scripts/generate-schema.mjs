// Writes dist/schema.json: the JSON Schema (draft 2020-12) of one envelope, generated from the
// zod schemas that the package itself validates with, so clients in other languages check a
// stream against exactly the same rules. Runs after tsup (it reads the built dist/index.js and
// dist/schemas.js).
import { writeFileSync } from "node:fs";
import { z } from "zod";
import { PROTOCOL_VERSION } from "../dist/index.js";
import { OmniMessageSchema } from "../dist/schemas.js";

// "input" describes what a reader accepts: fields with a default (session_meta's
// protocol_version) are optional, as in traces written before the field existed.
const { $schema, ...generated } = z.toJSONSchema(OmniMessageSchema, { target: "draft-2020-12", io: "input" });

const schema = {
  $schema,
  $id: `urn:penguin:protocol:v${PROTOCOL_VERSION}:omni-message`,
  title: `Penguin OmniMessage envelope (protocol version ${PROTOCOL_VERSION})`,
  description:
    "One message of a Penguin stream, trace line or SSE event: {timestamp, type, payload, origin?}. " +
    "Payload objects allow additional properties so newer writers stay readable.",
  ...generated,
};

const target = new URL("../dist/schema.json", import.meta.url);
writeFileSync(target, `${JSON.stringify(schema, null, 2)}\n`);
console.log(`schema.json written (protocol version ${PROTOCOL_VERSION})`);
