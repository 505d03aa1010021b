import { changesReverted, type OmniMessage, taskChanges, taskEnd, withOrigin } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { shownPath } from "../src/stream/changes.js";
import { SessionTimeline, type TimelineItem } from "../src/stream/timeline.js";

// The timeline's "Files changed" items: one per task_changes of the session itself, each saying
// which revert took it back, as long as that revert is not itself reverted.

function changesItems(messages: OmniMessage[]) {
  const timeline = new SessionTimeline();
  timeline.seed({ messages, partial: [], task_state: { state: "idle", pendingSteering: 0 }, approvals: [] });
  return timeline
    .state()
    .items.filter((item): item is Extract<TimelineItem, { kind: "changes" }> => item.kind === "changes")
    .map((item) => item.changes);
}

const file = (path: string, status: "added" | "changed" | "removed") => ({
  path,
  status,
  kind: "file" as const,
  lines_added: status === "removed" ? 0 : 2,
  lines_removed: status === "added" ? 0 : 1,
  restorable: true,
});

const reverted = (changeSet: string, target: string) =>
  changesReverted({
    change_set: changeSet,
    reverted: target,
    restored: ["/w/a.txt"],
    conflicts: [],
    forced: false,
  });

describe("Files changed in the timeline", () => {
  it("carries what a task's commands changed, or why that was not seen", () => {
    const byCommands = taskChanges({
      change_set: "1",
      files: [],
      commands: { tracked: "git", files: [{ path: "/w/made.txt", status: "added" }] },
    });
    const untracked = taskChanges({
      change_set: "2",
      files: [file("/w/a.txt", "changed")],
      commands: { tracked: "none", reason: "the workspace is not a git repository" },
    });
    const [first, second] = changesItems([byCommands, taskEnd("completed"), untracked]);
    expect(first?.files).toEqual([]);
    expect(first?.commands).toEqual({ tracked: "git", files: [{ path: "/w/made.txt", status: "added" }] });
    expect(second?.commands).toEqual({ tracked: "none", reason: "the workspace is not a git repository" });
  });

  it("shows each change set once, with the revert that stands against it", () => {
    const task = taskChanges({
      change_set: "1",
      files: [file("/w/a.txt", "changed"), file("/w/n.md", "added")],
    });
    const undo1 = taskChanges({ change_set: "undo-1", files: [file("/w/a.txt", "changed")] });
    const undo2 = taskChanges({ change_set: "undo-2", files: [file("/w/a.txt", "changed")] });

    const once = changesItems([task, taskEnd("completed"), reverted("undo-1", "1"), undo1]);
    expect(once.map((view) => [view.changeSet, view.reverts, view.revertedBy])).toEqual([
      ["1", undefined, "undo-1"],
      ["undo-1", "1", undefined],
    ]);
    expect(once[0].files[1]).toEqual({
      path: "/w/n.md",
      status: "added",
      kind: "file",
      linesAdded: 2,
      linesRemoved: 0,
      restorable: true,
    });

    // Reverting the revert puts the task's changes back: the task is no longer reverted.
    const twice = changesItems([task, reverted("undo-1", "1"), undo1, reverted("undo-2", "undo-1"), undo2]);
    expect(twice.map((view) => [view.changeSet, view.revertedBy])).toEqual([
      ["1", undefined],
      ["undo-1", "undo-2"],
      ["undo-2", undefined],
    ]);
  });

  it("leaves out a subagent's summary (its task's changes are the parent's) and shows paths inside the workspace relative", () => {
    const child = withOrigin(taskChanges({ change_set: "1", files: [file("/w/x", "added")] }), "child");
    expect(changesItems([child])).toEqual([]);
    expect(shownPath("/w/src/a.ts", "/w")).toBe("src/a.ts");
    expect(shownPath("/elsewhere/a.ts", "/w")).toBe("/elsewhere/a.ts");
    expect(shownPath("/w2/a.ts", "/w")).toBe("/w2/a.ts");
  });
});
