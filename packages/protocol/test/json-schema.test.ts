import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { beforeAll, describe, expect, test } from "vitest";
import { PROTOCOL_VERSION, parseEnvelope } from "../src/index.js";
import { everyKind, viaJson, withField } from "./fixtures/every-kind.js";

// The schema is a build output (scripts/generate-schema.mjs runs after tsup); turbo builds the
// package before testing it. Resolving it through the package name also checks the exports map.
const schemaPath = createRequire(import.meta.url).resolve("@penguin/protocol/schema.json");

let validate: ReturnType<Ajv2020["compile"]>;
let schema: Record<string, unknown>;

beforeAll(() => {
  if (!existsSync(schemaPath)) throw new Error(`${schemaPath} is missing: run the package build first`);
  schema = JSON.parse(readFileSync(schemaPath, "utf8"));
  // strict: an unknown keyword in the generated schema is an error, not a silent no-op.
  validate = new Ajv2020({ strict: true, allErrors: true }).compile(schema);
});

/** Both validators must agree: the JSON Schema is exactly as strict as parseEnvelope. */
function verdicts(value: unknown) {
  return { schema: validate(value), zod: parseEnvelope(value).ok };
}

describe("dist/schema.json", () => {
  test("is exported as @penguin/protocol/schema.json and is the build's file", () => {
    expect(schemaPath).toBe(fileURLToPath(new URL("../dist/schema.json", import.meta.url)));
  });

  test("is draft 2020-12 with an $id and a title naming the protocol version", () => {
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.$id).toBe(`urn:penguin:protocol:v${PROTOCOL_VERSION}:omni-message`);
    expect(schema.title).toContain(`protocol version ${PROTOCOL_VERSION}`);
  });

  test.each(Object.entries(everyKind()))("accepts a %s envelope from the builders", (_kind, message) => {
    const ok = validate(viaJson(message));
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  test("accepts a session_meta without protocol_version (written before versioning)", () => {
    const meta = viaJson(everyKind().session_meta) as { payload: Record<string, unknown> };
    delete meta.payload.protocol_version;
    expect(verdicts(meta)).toEqual({ schema: true, zod: true });
  });

  test("accepts fields it does not know, in payloads and envelopes (newer writers)", () => {
    const m = viaJson(everyKind().tool_call) as Record<string, unknown> & {
      payload: Record<string, unknown>;
    };
    m.payload.future_field = { nested: [1, 2] };
    m.sequence = 7;
    expect(verdicts(m)).toEqual({ schema: true, zod: true });
  });

  const broken: Array<[string, keyof ReturnType<typeof everyKind>, string, unknown]> = [
    ["an unknown envelope type", "assistant_text", "type", "model_message"],
    ["an unknown payload type", "assistant_text", "payload.type", "txt"],
    ["a missing timestamp", "assistant_text", "timestamp", undefined],
    ["an empty timestamp", "assistant_text", "timestamp", ""],
    ["a missing payload", "assistant_text", "payload", undefined],
    ["a text that is not a string", "assistant_text", "payload.text", 42],
    ["an unknown role", "assistant_text", "payload.role", "system"],
    ["an unknown stop reason", "assistant_text", "payload.stop_reason", "done"],
    ["an origin with an empty id", "child_text", "origin.1", ""],
    ["an origin that is a string", "assistant_text", "origin", "s_child"],
    ["fidelity that is not an object", "thinking", "payload.fidelity", "sig"],
    ["a negative token count", "token_usage", "payload.request.total", -1],
    ["an unknown partial event_type", "partial_text", "payload.event_type", "middle"],
    ["an empty tool_call_id", "partial_tool_call", "payload.tool_call_id", ""],
    ["protocol_version 0", "session_meta", "payload.protocol_version", 0],
    ["a tool spec without a name", "tool_list_ready", "payload.tools.0.name", undefined],
    ["an MCP result with an unknown transport", "mcp_connect_end", "payload.results.1.transport", "ws"],
    ["an MCP connect status that is not one", "mcp_connect_end", "payload.status", "partial"],
    ["a hook phase that is not one", "hook_result", "payload.phase", "during_tool"],
    ["a hook result without its output", "hook_result", "payload.output", undefined],
    ["a goal outcome that is not one", "goal_finished", "payload.outcome", "done"],
    ["a goal with negative rounds", "goal_finished", "payload.rounds", -1],
    ["a goal without its tokens used", "goal_finished", "payload.tokens_used", undefined],
  ];
  test.each(broken)("rejects %s, as parseEnvelope does", (_what, kind, path, value) => {
    expect(verdicts(withField(everyKind()[kind], path, value))).toEqual({ schema: false, zod: false });
  });

  test("rejects values that are not objects, as parseEnvelope does", () => {
    for (const value of ["not an envelope", null, 42, []]) {
      expect(verdicts(value)).toEqual({ schema: false, zod: false });
    }
  });
});
