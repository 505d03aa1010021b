import { subagentPointer, userText } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { subagentTree, TraceWriter } from "../src/index.js";
import { meta, tempLocation } from "./helpers.js";

type Loc = ReturnType<typeof tempLocation>;

function session(loc: Loc, id: string, records: Parameters<TraceWriter["append"]>[0][], extra = {}) {
  const writer = TraceWriter.create(loc, id);
  writer.append(meta(id, extra));
  for (const record of records) writer.append(record);
  writer.close();
}

describe("subagentTree", () => {
  it("follows subagent pointer events recursively to the child traces", () => {
    const loc = tempLocation();
    session(loc, "root", [
      userText("delegate"),
      subagentPointer("kid-a", { subagent_id: "researcher", tool_call_id: "call_1" }),
      subagentPointer("kid-b"),
      subagentPointer("kid-a"),
    ]);
    session(loc, "kid-a", [subagentPointer("grandkid")], { source: "subagent", parent_session_id: "root" });
    session(loc, "kid-b", []);
    session(loc, "grandkid", []);

    const tree = subagentTree(loc, "root");
    const shape = (node: ReturnType<typeof subagentTree>): unknown => ({
      id: node.sessionId,
      ...(node.problem ? { problem: node.problem } : {}),
      children: node.children.map(shape),
    });
    expect(shape(tree)).toEqual({
      id: "root",
      children: [
        { id: "kid-a", children: [{ id: "grandkid", children: [] }] },
        { id: "kid-b", children: [] },
      ],
    });
    expect(tree.children[0]).toMatchObject({
      subagentId: "researcher",
      toolCallId: "call_1",
      meta: { session_id: "kid-a", parent_session_id: "root" },
    });
    expect(tree.files).toHaveLength(1);
  });

  it("reports missing children, bad ids and cycles on their node instead of throwing", () => {
    const loc = tempLocation();
    session(loc, "a", [subagentPointer("gone"), subagentPointer("../evil"), subagentPointer("b")]);
    session(loc, "b", [subagentPointer("a")]);
    const tree = subagentTree(loc, "a");
    expect(tree.children.map((c) => [c.sessionId, c.problem])).toEqual([
      ["gone", "missing"],
      ["../evil", "invalid_id"],
      ["b", undefined],
    ]);
    expect(tree.children[2].children.map((c) => [c.sessionId, c.problem])).toEqual([["a", "cycle"]]);
  });

  it("throws for an unknown or invalid root session", () => {
    const loc = tempLocation();
    expect(() => subagentTree(loc, "nobody")).toThrow(expect.objectContaining({ code: "session_not_found" }));
    expect(() => subagentTree(loc, "a/b")).toThrow(expect.objectContaining({ code: "invalid_session_id" }));
  });
});
