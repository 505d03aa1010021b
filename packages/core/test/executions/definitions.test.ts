import { READ_EXECUTION_DEFINITION, SEARCH_EXECUTIONS_DEFINITION } from "@penguin/state";
import { EXECUTION_PARTS, EXECUTION_STATES } from "@penguin/trace";
import { describe, expect, it } from "vitest";

// The tool definitions (in @penguin/state, which does not depend on the trace package) spell out
// the states and parts the trace readers know: a value the schema lets through must be one the
// reader handles, and every state or part the reader has must be offered to the model.

const enumOf = (parameters: unknown, name: string) =>
  (parameters as { properties: Record<string, { enum?: unknown }> }).properties[name]?.enum;

describe("the execution tools' schemas", () => {
  it("offer exactly the states and parts the trace readers know", () => {
    expect(enumOf(SEARCH_EXECUTIONS_DEFINITION.parameters, "state")).toEqual([...EXECUTION_STATES]);
    expect(enumOf(READ_EXECUTION_DEFINITION.parameters, "part")).toEqual([...EXECUTION_PARTS]);
  });
});
