import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ScriptTurnInput } from "@penguin/fake-llm";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/approval/policies.js";
import type { Session } from "../../src/sdk/session.js";
import type { Execution } from "../../src/sdk/session-executions.js";
import { collect, kind, RETRY_FAST, setup } from "../sdk/fixtures.js";
import { payloadOf, type SessionProcess, spawnSessionProcess, until } from "./process-fixtures.js";

// A session's process is killed (SIGKILL) while three agents work: the root, a child it launched
// (launch_agent) and a child it started with run_subagent, each in a long command. The resumed
// session lists the three executions as interrupted, reads each, and resume_execution continues
// all three: the children on their own sessions, the root's own task in its next task.

type Env = Awaited<ReturnType<typeof setup>>;
const envs: Env[] = [];
const processes: SessionProcess[] = [];
const groups: number[] = [];
afterEach(async () => {
  for (const p of processes.splice(0)) p.cleanup();
  // The killed process could not end its commands' process groups; the test does, by their ids.
  for (const pgid of groups.splice(0)) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {}
  }
  await Promise.all(envs.splice(0).map((e) => e.cleanup()));
});

const ALPHA = "ALPHA-MARKER";
const BRAVO = "BRAVO-MARKER";
const EXTENDED = { tools: { preset: "extended" as const } };

const longCall = (id: string, name: string) => ({
  id,
  name: "exec_command",
  arguments: { description: "work long", cmd: `echo $$ > ${name}.pgid; sleep 120`, yield_time_ms: 60_000 },
});
const resume = (id: string, executionId: string) => ({
  id,
  name: "resume_execution",
  arguments: { execution_id: executionId },
});

/** The first user message of a chat request: a child's is its task, which names its route. */
function firstUserText(body: unknown): string {
  const messages = (body as { messages?: { role: string; content?: unknown }[] }).messages ?? [];
  const first = messages.find((message) => message.role === "user");
  return typeof first?.content === "string" ? first.content : JSON.stringify(first?.content ?? "");
}

function lastUserText(body: unknown): string {
  const messages = (body as { messages?: { role: string; content?: unknown }[] }).messages ?? [];
  const last = messages.filter((message) => message.role === "user").at(-1);
  return typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
}

function listed(session: Session): Execution[] {
  const found = session.executions();
  if (!found.ok) throw new Error(found.error);
  return found.executions;
}

describe("executions after a SIGKILL with three agents running", () => {
  it("lists all three as interrupted, reads them, and resumes them", async () => {
    const routes: Record<string, ScriptTurnInput[]> = {
      [ALPHA]: [{ tool_calls: [longCall("a_long", "alpha")] }, { text: "alpha resumed and done" }],
      [BRAVO]: [{ tool_calls: [longCall("b_long", "bravo")] }, { text: "bravo resumed and done" }],
    };
    const env = await setup(
      [
        // One launch a turn: calls of one turn start together, and the ids (sub_1, sub_2) go in
        // the order the launches happen to start.
        {
          tool_calls: [
            {
              id: "r_launch",
              name: "launch_agent",
              arguments: { task: `${ALPHA}: work long.`, agent_definition: { instructions: "You help." } },
            },
          ],
        },
        {
          tool_calls: [
            {
              id: "r_sub",
              name: "run_subagent",
              arguments: { description: "start", prompt: `${BRAVO}: work long.`, yield_time_ms: 200 },
            },
          ],
        },
        { tool_calls: [longCall("r_long", "root")] },
        // After the resume: the user asks to continue; the model resumes the three.
        { tool_calls: [resume("r_resume_alpha", "sub_1/1"), resume("r_resume_bravo", "sub_2/1")] },
        { tool_calls: [resume("r_resume_own", "root/1")] },
        { text: "All three continue." },
        // Asked again later: the child's first task was already continued.
        { tool_calls: [resume("r_again", "sub_1/1")] },
        { text: "Nothing more to resume." },
      ],
      {
        config: EXTENDED,
        pick(body) {
          const first = firstUserText(body);
          const route = Object.keys(routes).find((marker) => first.includes(marker));
          if (!route) return undefined;
          return routes[route]?.shift() ?? { text: `(the script of ${route} is exhausted)` };
        },
      },
    );
    envs.push(env);
    const run = spawnSessionProcess(env, "Run the three.", EXTENDED);
    processes.push(run);
    const { session_id: rootId } = (await run.waitFor((line) => "session_id" in line)) as {
      session_id: string;
    };
    const pgidFiles = ["root", "alpha", "bravo"].map((name) => join(env.workspaceDir, `${name}.pgid`));
    await until(
      () => pgidFiles.every((file) => existsSync(file) && readFileSync(file, "utf8").trim() !== ""),
      "three long commands",
    );
    groups.push(...pgidFiles.map((file) => Number(readFileSync(file, "utf8").trim())));
    await run.waitFor(
      (line) => payloadOf(line).type === "tool_dispatched" && payloadOf(line).tool_call_id === "r_long",
    );
    await run.kill();

    const resumed = await env.agent.resumeSession(rootId, { retry: RETRY_FAST });
    const before = listed(resumed);
    const byPrompt = (marker: string) => before.find((e) => e.prompt?.includes(marker));
    expect(before.map((e) => [e.id, e.state, e.resumable])).toEqual([
      ["root/1", "interrupted", true],
      ["sub_1/1", "interrupted", true],
      ["sub_2/1", "interrupted", true],
    ]);
    expect(byPrompt(ALPHA)).toMatchObject({
      agentRunId: "sub_1",
      parent: "root",
      depth: 1,
      uncertainCalls: 1,
    });
    expect(byPrompt(BRAVO)).toMatchObject({
      agentRunId: "sub_2",
      parent: "root",
      depth: 1,
      uncertainCalls: 1,
    });
    expect(resumed.executions({ agentRunId: "sub_2" })).toMatchObject({
      ok: true,
      executions: [{ id: "sub_2/1" }],
    });
    // Each is readable: its long command started and never reported.
    for (const [id, call] of [
      ["root/1", "r_long"],
      ["sub_1/1", "a_long"],
      ["sub_2/1", "b_long"],
    ] as const) {
      const read = resumed.execution(id, "activities");
      if (!read.ok) throw new Error(read.error);
      expect(read.items.find((item) => item.text.startsWith(`exec_command (${call})`))?.text).toContain(
        "dispatched, uncertain",
      );
    }

    const more = await collect(resumed.run("Please resume the work.", { approve: allowAll }));
    expect(more.at(-1)?.payload).toMatchObject({ type: "task_end", status: "completed" });
    const outputs = Object.fromEntries(
      more
        .filter((m) => kind(m) === "tool_call_output" && m.origin === undefined)
        .map((m) => {
          const p = m.payload as { tool_call_id: string; output: string; stop_reason: string };
          return [p.tool_call_id, p];
        }),
    );
    expect(outputs.r_resume_alpha).toMatchObject({
      stop_reason: "completed",
      output: expect.stringContaining("Resumed sub_1/1"),
    });
    expect(outputs.r_resume_bravo).toMatchObject({
      stop_reason: "completed",
      output: expect.stringContaining("Resumed sub_2/1"),
    });
    expect(outputs.r_resume_own?.output).toContain("Continuing root/1 in this task (root/2)");
    expect(outputs.r_resume_own?.output).toContain("exec_command (r_long) started and never reported");

    // The children continue on their own sessions and finish their continuation tasks.
    await until(() => {
      const after = listed(resumed);
      return ["sub_1/2", "sub_2/2"].every((id) => after.find((e) => e.id === id)?.state === "completed");
    }, "the resumed children's ends");
    const after = listed(resumed);
    expect(after.map((e) => [e.id, e.state])).toEqual([
      ["root/1", "interrupted"],
      ["root/2", "completed"],
      ["sub_1/1", "interrupted"],
      ["sub_1/2", "completed"],
      ["sub_2/1", "interrupted"],
      ["sub_2/2", "completed"],
    ]);
    expect(after.find((e) => e.id === "sub_1/2")?.sessionId).toBe(byPrompt(ALPHA)?.sessionId);
    // Each child's model was told what it was doing and to check the workspace first.
    for (const marker of [ALPHA, BRAVO]) {
      const continued = env.llm.requests.filter((r) => firstUserText(r.body).includes(marker)).at(-1);
      expect(lastUserText(continued?.body)).toContain("[resumed] Your previous task was cut off");
      expect(lastUserText(continued?.body)).toContain("check the workspace");
    }
    // An execution already continued is not resumed twice.
    const again = await collect(resumed.run("Again?", { approve: allowAll }));
    const refused = again.find((m) => kind(m) === "tool_call_output" && m.origin === undefined)?.payload;
    expect(refused).toMatchObject({
      tool_call_id: "r_again",
      stop_reason: "failed",
      output: expect.stringContaining("sub_1/2 came after it"),
    });
    await resumed.dispose();
  });
});
