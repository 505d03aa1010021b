import { describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import { collect, outputOf } from "../subagent/fixtures.js";
import { cleanedUpAfterEach } from "../support/cleaned-up.js";
import { launch, type MessageEvent, MODEL, RETRY_FAST, send, setupTree, wait } from "./fixtures.js";

// Root -> child -> grandchild, each a real session against fake-llm over HTTP, launched with
// launch_agent and talking through send_message / wait_messages. Every trace is read back from
// disk: each message is a message_sent in its sender's trace and a message_delivered with the
// same id in its recipient's; each launch and each child's end is in its launcher's trace.

const start = cleanedUpAfterEach(setupTree);

const CHILD = "ALPHA-MARKER coordinator";
const GRANDCHILD = "BRAVO-MARKER helper";

describe("three levels of agents exchanging messages", () => {
  it("carries messages down and up the tree, and each trace has its events with matching ids", async () => {
    const env = await start({
      root: [
        {
          tool_calls: [launch("r_launch", "Coordinate a helper.", { instructions: `You are the ${CHILD}.` })],
        },
        { tool_calls: [send("r_send", "sub_1", "hello child from root")] },
        { tool_calls: [wait("r_wait1", 20_000)] },
        { tool_calls: [wait("r_wait2", 20_000)] },
        { text: "root done" },
      ],
      routes: {
        [CHILD]: [
          { tool_calls: [wait("c_wait_root", 20_000)] },
          {
            tool_calls: [
              launch("c_launch", "Greet your launcher.", { instructions: `You are the ${GRANDCHILD}.` }),
            ],
          },
          { tool_calls: [send("c_send", "sub_2", "hello grandchild")] },
          { tool_calls: [wait("c_wait1", 20_000)] },
          { tool_calls: [wait("c_wait2", 20_000)] },
          { tool_calls: [send("c_up", "root", "the grandchild said hi")] },
          { text: "child done" },
        ],
        [GRANDCHILD]: [
          { tool_calls: [wait("g_wait", 20_000)] },
          { tool_calls: [send("g_send", "sub_1", "hi parent")] },
          { text: "grandchild done" },
        ],
      },
    });
    const session = await env.agent.createSession({
      workspaceDir: env.workspaceDir,
      model: MODEL,
      retry: RETRY_FAST,
    });
    const yielded = await collect(session.run("Run the tree.", { approve: allowAll }));
    const tree = session.subagents;
    const rootId = session.id;
    await session.dispose();

    expect(outputOf(yielded, "r_launch").output).toContain("agent_run_id: sub_1");
    expect(
      tree.map(({ subagentId, parent, depth, status }) => ({ subagentId, parent, depth, status })),
    ).toEqual([
      { subagentId: "sub_1", parent: "root", depth: 1, status: "idle" },
      { subagentId: "sub_2", parent: "sub_1", depth: 2, status: "idle" },
    ]);
    const [child, grandchild] = tree.map((info) => info.sessionId);
    // Each child's system prompt carries its instructions, after the agent's own prompt.
    expect(env.requestsOf(CHILD).length).toBeGreaterThan(0);
    expect(env.requestsOf(GRANDCHILD).length).toBeGreaterThan(0);

    // The launches: the pointer (so a resume finds the child) and agent_launched, in the launcher's trace.
    expect(env.events(rootId, "agent_launched")).toEqual([
      expect.objectContaining({
        agent_run_id: "sub_1",
        parent: "root",
        depth: 1,
        session_id: child,
        tool_call_id: "r_launch",
      }),
    ]);
    expect(env.events(child!, "agent_launched")).toEqual([
      expect.objectContaining({
        agent_run_id: "sub_2",
        parent: "sub_1",
        depth: 2,
        session_id: grandchild,
        tool_call_id: "c_launch",
      }),
    ]);
    expect(env.events(child!, "subagent")).toEqual([
      expect.objectContaining({ session_id: grandchild, subagent_id: "sub_2" }),
    ]);

    // Every message sent in the tree is delivered, with the same id, in its recipient's trace.
    const traces = { root: rootId, sub_1: child!, sub_2: grandchild! };
    const sent = Object.values(traces).flatMap((id) => env.events<MessageEvent>(id, "message_sent"));
    expect(sent.map((m) => [m.from, m.to, m.text])).toEqual(
      expect.arrayContaining([
        ["root", "sub_1", "hello child from root"],
        ["sub_1", "sub_2", "hello grandchild"],
        ["sub_2", "sub_1", "hi parent"],
        ["sub_1", "root", "the grandchild said hi"],
      ]),
    );
    expect(sent).toHaveLength(4);
    for (const message of sent) {
      const delivered = env.events<MessageEvent>(
        traces[message.to as keyof typeof traces],
        "message_delivered",
      );
      expect(delivered).toContainEqual(
        expect.objectContaining({ message_id: message.message_id, from: message.from, text: message.text }),
      );
    }

    // A child's end reaches its launcher as a message from the child, and as agent_finished when read.
    const rootDelivered = env.events<MessageEvent>(rootId, "message_delivered");
    const report = rootDelivered.find(
      (m) => m.from === "sub_1" && m.text.startsWith("[agent sub_1 finished"),
    );
    expect(report?.text).toBe("[agent sub_1 finished: completed]\nFinal answer:\nchild done");
    expect(env.events(rootId, "agent_finished")).toEqual([
      expect.objectContaining({ agent_run_id: "sub_1", status: "completed", message_id: report?.message_id }),
    ]);
    const childFinished = env.events<{ agent_run_id: string; message_id: string }>(child!, "agent_finished");
    expect(childFinished).toEqual([expect.objectContaining({ agent_run_id: "sub_2", status: "completed" })]);
    const childDelivered = env.events<MessageEvent>(child!, "message_delivered");
    expect(childDelivered.find((m) => m.message_id === childFinished[0]?.message_id)?.text).toContain(
      "Final answer:\ngrandchild done",
    );
  });
});
