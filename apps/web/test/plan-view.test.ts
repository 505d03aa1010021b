import { planProposed, planUpdated, taskEnd } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { planOf } from "../src/stream/plan.js";

// What the plan panel and the Plan ready card show, from the session's records alone.

const ended = () => taskEnd("completed");

describe("the plan of a session's records", () => {
  it("is empty before any checklist or proposal", () => {
    expect(planOf([])).toEqual({});
  });

  it("keeps the latest checklist whole, with its note only when that update has one", () => {
    const plan = planOf([
      planUpdated([{ step: "Read", status: "in_progress" }], "starting"),
      planUpdated([
        { step: "Read", status: "done" },
        { step: "Write", status: "pending" },
      ]),
    ]);
    expect(plan.steps).toEqual([
      { step: "Read", status: "done" },
      { step: "Write", status: "pending" },
    ]);
    expect(plan.note).toBeUndefined();
  });

  it("offers a proposed plan until the next task ends, then only the newer proposal", () => {
    const first = [ended(), planProposed("1. Do it", "/scratch/PLAN.md")];
    expect(planOf(first).ready).toEqual({ text: "1. Do it", path: "/scratch/PLAN.md" });
    // Approved (or adjusted): the next task ran and ended.
    expect(planOf([...first, ended()]).ready).toBeUndefined();
    // Adjusted: the next plan-mode task proposed a new plan after its end.
    expect(planOf([...first, ended(), planProposed("2. Do it better")]).ready).toEqual({
      text: "2. Do it better",
    });
  });

  it("ignores a subagent's checklist and proposal", () => {
    const child = { ...planProposed("child plan"), origin: ["sub_1"] };
    const childSteps = { ...planUpdated([{ step: "child", status: "pending" }]), origin: ["sub_1"] };
    expect(planOf([childSteps, child])).toEqual({});
  });
});
