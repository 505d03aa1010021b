import { assistantText, taskEnd } from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { type ChildFinished, type ChildSession, SubagentManager } from "../../src/tools/subagent/index.js";

// A launched child's end, as the runtime reports it: a message from the child in its launcher's
// inbox (bounded: a long answer is cut and says so), and the onChildFinished listeners (the
// `agent.finished` notices are made from them). The children here are sessions that answer at once.

function answering(answer: string): ChildSession {
  return {
    id: `child-${answer.length}`,
    async *run() {
      yield assistantText(answer);
      yield taskEnd("completed");
    },
    dispose: async () => {},
  };
}

function tree(answer: string) {
  return new SubagentManager({
    launcher: {
      create: async () => answering(answer),
      resume: () => Promise.reject(new Error("not used")),
      readTrace: () => [],
    },
  });
}

describe("a launched child's end", () => {
  it("reaches its launcher's inbox and the onChildFinished listeners; a run_subagent child's reaches only the listeners", async () => {
    const manager = tree("All done.");
    const heard: ChildFinished[] = [];
    const unsubscribe = manager.onChildFinished((info) => heard.push(info));
    manager.messages.open("sub_9");

    const launched = await manager.spawn({}, { parent: "root", depth: 1, launched: true, agent: "helper" });
    if (!launched.ok) throw new Error(launched.error);
    launched.subagent.startTask("Do it.", undefined);
    await launched.subagent.settled(5_000);
    const spawned = await manager.spawn({});
    if (!spawned.ok) throw new Error(spawned.error);
    spawned.subagent.startTask("Do it too.", undefined);
    await spawned.subagent.settled(5_000);

    expect(heard).toEqual([
      {
        agentRunId: "sub_1",
        parent: "root",
        outcome: { status: "completed" },
        launched: true,
        agent: "helper",
      },
      { agentRunId: "sub_2", parent: "root", outcome: { status: "completed" }, launched: false },
    ]);
    const inbox = manager.messages.inbox("root")!.takeAll();
    expect(inbox).toEqual([
      expect.objectContaining({
        from: "sub_1",
        to: "root",
        text: "[agent sub_1 finished: completed]\nFinal answer:\nAll done.",
        finished: { agentRunId: "sub_1", status: "completed" },
      }),
    ]);
    unsubscribe();
  });

  it("cuts a long final answer in its report, and says so", async () => {
    const manager = tree("x".repeat(20_000));
    const launched = await manager.spawn({}, { parent: "root", depth: 1, launched: true });
    if (!launched.ok) throw new Error(launched.error);
    launched.subagent.startTask("Write a lot.", undefined);
    await launched.subagent.settled(5_000);
    const [report] = manager.messages.inbox("root")!.takeAll();
    expect(report?.text).toContain(
      "Final answer (its last 12000 characters were cut; its trace has all of it):\n",
    );
    expect(report?.text.endsWith("x".repeat(8_000))).toBe(true);
    expect(report!.text.length).toBeLessThan(8_200);
  });
});
