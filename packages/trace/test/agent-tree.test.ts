import {
  agentFinished,
  agentLaunched,
  agentStopped,
  assistantText,
  messageDelivered,
  messageSent,
  questionAsked,
  subagentPointer,
  taskEnd,
  userText,
  withOrigin,
} from "@penguin/protocol";
import { describe, expect, it } from "vitest";
import { type AgentTreeNode, agentTree, flattenAgentTree, TraceWriter } from "../src/index.js";
import { meta, tempLocation } from "./helpers.js";

type Loc = ReturnType<typeof tempLocation>;
type Record = Parameters<TraceWriter["append"]>[0];

function session(loc: Loc, id: string, records: Record[], parent?: string) {
  const writer = TraceWriter.create(loc, id);
  writer.append(meta(id, parent ? { source: "subagent", parent_session_id: parent } : {}));
  for (const record of records) writer.append(record);
  writer.close();
}

const at = "2026-12-02T10:00:00.000Z";
const sent = (id: string, from: string, to: string, text: string) =>
  messageSent({ message_id: id, from, to, text, sent_at: at });
const delivered = (id: string, from: string, to: string, text: string) =>
  messageDelivered({ message_id: id, from, to, text, sent_at: at });
const launched = (
  run: string,
  parent: string,
  sessionId: string,
  depth: number,
  task: string,
  agent?: string,
) => [
  subagentPointer(sessionId, { subagent_id: run }),
  agentLaunched({
    agent_run_id: run,
    parent,
    session_id: sessionId,
    depth,
    task,
    ...(agent ? { agent } : {}),
  }),
];

const shape = (node: AgentTreeNode): unknown => ({
  run: node.agentRunId,
  status: node.status,
  ...(node.problem ? { problem: node.problem } : {}),
  children: node.children.map(shape),
});

describe("agentTree", () => {
  it("follows launches three levels down, with each agent's task, named agent, status and message counts", () => {
    const loc = tempLocation();
    session(loc, "s-root", [
      userText("Review the change"),
      ...launched("sub_1", "root", "s-lead", 1, "Lead the review", "reviewer"),
      sent("msg_1", "root", "sub_1", "start"),
      delivered("msg_4", "sub_1", "root", "all good"),
      // A child's streamed record relayed into the root's trace is the child's, not the root's.
      withOrigin(sent("msg_9", "sub_1", "root", "relayed"), "s-lead"),
      agentFinished({ agent_run_id: "sub_1", status: "completed" }),
      assistantText("Done"),
      taskEnd("completed"),
    ]);
    session(
      loc,
      "s-lead",
      [
        userText("Lead the review", { sender: "parent_agent" }),
        delivered("msg_1", "root", "sub_1", "start"),
        ...launched("sub_2", "sub_1", "s-worker", 2, "Check the tests"),
        questionAsked({ question_id: "q_1", from: "sub_1", to: "root", text: "Which branch?" }),
        delivered("msg_3", "sub_2", "sub_1", "tests pass"),
        sent("msg_4", "sub_1", "root", "all good"),
        taskEnd("completed"),
      ],
      "s-root",
    );
    session(
      loc,
      "s-worker",
      [
        userText("Check the tests", { sender: "parent_agent" }),
        sent("msg_3", "sub_2", "sub_1", "tests pass"),
        taskEnd("failed"),
      ],
      "s-lead",
    );

    const tree = agentTree(loc, "s-root");
    expect(shape(tree)).toEqual({
      run: "root",
      status: "completed",
      children: [
        { run: "sub_1", status: "completed", children: [{ run: "sub_2", status: "failed", children: [] }] },
      ],
    });
    const [root, lead, worker] = flattenAgentTree(tree);
    expect(root).toMatchObject({ depth: 0, task: "Review the change", messagesSent: 1, messagesReceived: 1 });
    expect(root!.agent).toBeUndefined();
    expect(lead).toMatchObject({
      sessionId: "s-lead",
      depth: 1,
      agent: "reviewer",
      task: "Lead the review",
      messagesSent: 1,
      messagesReceived: 2,
      questionsAsked: 1,
    });
    expect(worker).toMatchObject({
      sessionId: "s-worker",
      depth: 2,
      task: "Check the tests",
      messagesSent: 1,
    });
  });

  it("calls a task with no end interrupted, unless the session is known to be running", () => {
    const loc = tempLocation();
    session(loc, "s-root", [userText("go"), ...launched("sub_1", "root", "s-kid", 1, "work")]);
    session(
      loc,
      "s-kid",
      [userText("work", { sender: "parent_agent" }), taskEnd("completed"), userText("more")],
      "s-root",
    );

    expect(shape(agentTree(loc, "s-root"))).toEqual({
      run: "root",
      status: "interrupted",
      children: [{ run: "sub_1", status: "interrupted", children: [] }],
    });
    const live = agentTree(loc, "s-root", { isRunning: (id) => id === "s-kid" });
    expect(shape(live)).toEqual({
      run: "root",
      status: "interrupted",
      children: [{ run: "sub_1", status: "running", children: [] }],
    });
  });

  it("shows a missing child trace on its node, with what its launcher recorded of its end", () => {
    const loc = tempLocation();
    session(loc, "s-root", [
      userText("go"),
      ...launched("sub_1", "root", "s-gone", 1, "first"),
      ...launched("sub_2", "root", "s-stopped", 1, "second"),
      ...launched("sub_3", "root", "s-never", 1, "third"),
      agentFinished({ agent_run_id: "sub_1", status: "completed" }),
      agentStopped({ agent_run_id: "sub_2", stopped: ["sub_2"], processes_ended: 1 }),
      taskEnd("completed"),
    ]);
    session(loc, "s-stopped", [userText("second", { sender: "parent_agent" })], "s-root");

    const tree = agentTree(loc, "s-root");
    expect(tree.children.map((c) => [c.agentRunId, c.status, c.problem, c.task])).toEqual([
      ["sub_1", "completed", "missing", "first"],
      ["sub_2", "aborted", undefined, "second"],
      ["sub_3", "unknown", "missing", "third"],
    ]);
  });

  it("reads a depth-1 subagent that has only a pointer, taking its task from its first prompt", () => {
    const loc = tempLocation();
    session(loc, "s-root", [
      userText("go"),
      subagentPointer("s-kid", { subagent_id: "sub_1" }),
      taskEnd("completed"),
    ]);
    session(
      loc,
      "s-kid",
      [userText("Count the files", { sender: "parent_agent" }), taskEnd("completed")],
      "s-root",
    );
    expect(agentTree(loc, "s-root").children[0]).toMatchObject({
      agentRunId: "sub_1",
      sessionId: "s-kid",
      depth: 1,
      task: "Count the files",
      status: "completed",
    });
  });

  it("throws for an unknown root session", () => {
    expect(() => agentTree(tempLocation(), "nope")).toThrow(/has no trace/);
  });
});
