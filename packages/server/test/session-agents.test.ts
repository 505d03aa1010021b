import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  agentLaunched,
  messageSent,
  sessionMeta,
  subagentPointer,
  taskEnd,
  userText,
} from "@penguin/protocol";
import { TraceWriter } from "@penguin/trace";
import { describe, expect, it } from "vitest";
import { readJson, request } from "./helpers.js";
import { envelopes, eventually, payloadType, sessionServer } from "./session-fixture.js";

// GET /api/sessions/:id/agents over a real server whose session starts a real child
// (run_subagent) on fake-llm: the child is `running` while its command waits, and `completed`
// once it is done; the tree comes from the traces, the running status from the live session.

interface AgentRow {
  agent_run_id: string;
  parent?: string;
  session_id: string;
  depth: number;
  task?: string;
  status: string;
  messages_sent: number;
  messages_received: number;
}

const FLAG = "release-the-child";

describe("GET /api/sessions/:id/agents", () => {
  it("lists the root and its child, the child running while it works and completed after", async () => {
    // Parent and child share the model and take turns: the parent's run_subagent window elapses
    // while the child's command waits for the flag file, so the parent's task ends first.
    const s = await sessionServer([
      {
        tool_calls: [
          {
            id: "call_spawn",
            name: "run_subagent",
            arguments: { description: "delegate", prompt: "Wait for the flag file.", yield_time_ms: 1_000 },
          },
        ],
      },
      {
        tool_calls: [
          {
            name: "exec_command",
            arguments: {
              description: "wait for the flag",
              cmd: `while [ ! -e ${FLAG} ]; do sleep 0.05; done`,
              yield_time_ms: 30_000,
            },
          },
        ],
      },
      { text: "The child works in the background." },
      { text: "The flag is there." },
    ]);
    const id = await s.createSession();
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Delegate" } });
    await stream.until((c) => envelopes(c.events).some((m) => payloadType(m) === "task_end" && !m.origin));

    const list = async () =>
      (await readJson<{ agents: AgentRow[] }>(await s.call(`/api/sessions/${id}/agents`))).agents;
    const during = await list();
    expect(during).toEqual([
      expect.objectContaining({
        agent_run_id: "root",
        session_id: id,
        depth: 0,
        status: "completed",
        task: "Delegate",
      }),
      expect.objectContaining({
        agent_run_id: "sub_1",
        parent: "root",
        depth: 1,
        status: "running",
        task: "Wait for the flag file.",
      }),
    ]);
    expect(during[0]!.parent).toBeUndefined();

    writeFileSync(join(s.workspace, FLAG), "");
    const after = await eventually(async () => {
      const agents = await list();
      return agents[1]?.status === "completed" ? agents : undefined;
    }, "the child to complete");
    expect(after[1]!.session_id).toBe(during[1]!.session_id);
    expect(existsSync(join(s.workspace, FLAG))).toBe(true);
  });

  it("is authenticated like the other session routes; a session with no task yet has its own agent", async () => {
    const s = await sessionServer([{ text: "hi" }]);
    const id = await s.createSession();
    const anonymous = await request(s.server.url, `/api/sessions/${id}/agents`, {});
    expect(anonymous.status).toBe(401);
    const fresh = await readJson<{ agents: AgentRow[] }>(await s.call(`/api/sessions/${id}/agents`));
    expect(fresh.agents).toEqual([
      expect.objectContaining({ agent_run_id: "root", session_id: id, depth: 0 }),
    ]);
  });

  it("follows launches below the first level: a grandchild's own trace, its launcher and its counts", async () => {
    const s = await sessionServer([{ text: "Launched." }]);
    const id = await s.createSession();
    const stream = await s.stream(id);
    await s.call(`/api/sessions/${id}/tasks`, { json: { input: "Launch a reviewer" } });
    await stream.until((c) => envelopes(c.events).some((m) => payloadType(m) === "task_end"));
    // What launch_agent writes, two levels down, beside the session's real trace.
    const location = s.server.sessions.location;
    const root = TraceWriter.open(location, id);
    root.append(subagentPointer("deep-lead", { subagent_id: "sub_1" }));
    root.append(
      agentLaunched({
        agent_run_id: "sub_1",
        parent: "root",
        session_id: "deep-lead",
        depth: 1,
        agent: "reviewer",
        task: "Lead",
      }),
    );
    root.close();
    const child = (sessionId: string, parent: string, records: Parameters<TraceWriter["append"]>[0][]) => {
      const writer = TraceWriter.create(location, sessionId);
      writer.append(
        sessionMeta({
          session_id: sessionId,
          provider: "fake",
          model_id: "fake-model",
          system_prompt: "",
          workspace: s.workspace,
          source: "subagent",
          parent_session_id: parent,
        }),
      );
      for (const record of records) writer.append(record);
      writer.close();
    };
    child("deep-lead", id, [
      userText("Lead", { sender: "parent_agent" }),
      subagentPointer("deep-worker", { subagent_id: "sub_2" }),
      agentLaunched({
        agent_run_id: "sub_2",
        parent: "sub_1",
        session_id: "deep-worker",
        depth: 2,
        task: "Test",
      }),
      taskEnd("completed"),
    ]);
    child("deep-worker", "deep-lead", [
      userText("Test", { sender: "parent_agent" }),
      messageSent({
        message_id: "msg_1",
        from: "sub_2",
        to: "sub_1",
        text: "ok",
        sent_at: "2026-12-02T10:00:00.000Z",
      }),
      taskEnd("failed"),
    ]);

    const { agents } = await readJson<{ agents: AgentRow[] }>(await s.call(`/api/sessions/${id}/agents`));
    expect(agents.map((a) => [a.agent_run_id, a.parent, a.depth, a.status, a.messages_sent])).toEqual([
      ["root", undefined, 0, "completed", 0],
      ["sub_1", "root", 1, "completed", 0],
      ["sub_2", "sub_1", 2, "failed", 1],
    ]);
    expect(agents[1]).toMatchObject({ agent: "reviewer", session_id: "deep-lead", task: "Lead" });
  });
});
