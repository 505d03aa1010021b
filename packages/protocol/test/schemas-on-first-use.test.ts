import { beforeEach, expect, test, vi } from "vitest";

// Loading the main entry builds no zod schema (on-first-use.ts says why): a program that only
// builds envelopes, writes them and reads current traces, like the CLI in a session, never pays
// for them. zod is replaced by itself with its schema functions counted (every schema is built through
// one: `z.object`, `z.string`, `z.enum`, ...), and each test loads the package afresh.

const built = vi.hoisted(() => ({ count: 0 }));

vi.mock("zod", async (importOriginal) => {
  const real = await importOriginal<typeof import("zod")>();
  const counted = new Proxy(real.z, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== "function" || typeof key !== "string" || !/^[a-z]/.test(key)) return value;
      return (...args: unknown[]) => {
        built.count += 1;
        return (value as (...a: unknown[]) => unknown)(...args);
      };
    },
  });
  return { ...real, z: counted };
});

beforeEach(() => {
  vi.resetModules();
  built.count = 0;
});

test("loading the main entry, building envelopes and reading current lines builds no schema", async () => {
  const protocol = await import("../src/index.js");
  const call = protocol.toolCall("exec_command", { cmd: "ls" }, "call_1");
  expect(protocol.envelopeError(JSON.parse(JSON.stringify(call)))).toBeUndefined();
  expect(protocol.parseEnvelopeLine(JSON.stringify(protocol.userText("hi"))).ok).toBe(true);
  expect(protocol.STOP_REASONS).toContain("completed");
  expect(built.count).toBe(0);
});

test("a trace of every kind the builders make is written and read back without a schema", async () => {
  const protocol = await import("../src/index.js");
  const { everyKind } = await import("./fixtures/every-kind.js");
  for (const [kind, message] of Object.entries(everyKind())) {
    const line = JSON.stringify(message);
    expect(protocol.envelopeError(JSON.parse(line)), kind).toBeUndefined();
    expect(protocol.parseEnvelopeLine(line).ok, kind).toBe(true);
  }
  expect(built.count).toBe(0);
});

test("a parse by zod builds the schemas it needs, once", async () => {
  const protocol = await import("../src/index.js");
  const broken = JSON.stringify({ ...protocol.userText("hi"), type: "no_such_kind" });
  expect(protocol.parseEnvelopeLine(broken).ok).toBe(false);
  const afterFirst = built.count;
  expect(afterFirst).toBeGreaterThan(0);
  expect(protocol.parseEnvelopeLine(broken).ok).toBe(false);
  expect(protocol.parseEnvelope(protocol.userText("hi")).ok).toBe(true);
  expect(protocol.envelopeSchemas()).toBe(protocol.envelopeSchemas());
  expect(built.count).toBe(afterFirst);
});

test("the schemas entry has them built, as constants, the same the accessors give", async () => {
  const schemas = await import("../src/schemas.js");
  const protocol = await import("../src/index.js");
  expect(built.count).toBeGreaterThan(0);
  expect(schemas.OmniMessageSchema).toBe(protocol.envelopeSchemas().OmniMessageSchema);
  expect(schemas.ModelScriptSchema).toBe(protocol.scriptSchemas().ModelScriptSchema);
  expect(schemas.StopReasonSchema.options).toEqual([...protocol.STOP_REASONS]);
  expect(schemas.PlanStepStatusSchema.options).toEqual([...protocol.PLAN_STEP_STATUSES]);
  expect(schemas.ApprovalModeSchema.options).toEqual([...protocol.APPROVAL_MODES]);
});
