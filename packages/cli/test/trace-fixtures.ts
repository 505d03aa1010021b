import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { OmniMessage } from "@penguin/protocol";
import {
  agentFinished,
  agentLaunched,
  approvalDecision,
  assistantText,
  messageDelivered,
  messageSent,
  questionAsked,
  requestBegin,
  requestEnd,
  sessionMeta,
  subagentPointer,
  taskEnd,
  thinking,
  tokenUsage,
  toolCall,
  toolCallOutput,
  toolListReady,
  userText,
} from "@penguin/protocol";
import { TraceWriter } from "@penguin/trace";
import { execa } from "execa";
import { CLI_BIN, penguin } from "./helpers.js";

/** The result of a `penguin` run with its streams as text. */
export interface CliResult {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
}

export async function cli(
  args: string[],
  opts: { env?: Record<string, string>; cwd?: string; input?: string } = {},
): Promise<CliResult> {
  const r = await penguin(args, opts);
  return { exitCode: r.exitCode, stdout: String(r.stdout ?? ""), stderr: String(r.stderr ?? "") };
}

const shellQuote = (arg: string) => `'${arg.replace(/'/g, "'\\''")}'`;

/**
 * Runs `penguin` with a real terminal on stdin and stdout: util-linux `script` gives the command
 * a pseudo-terminal and feeds it `answer` as typed input. stdout then carries the terminal's
 * echo and the question as well as the command's own output.
 */
export async function cliOnTerminal(
  args: string[],
  answer: string,
): Promise<{ exitCode: number | undefined; output: string }> {
  const command = [process.execPath, CLI_BIN, ...args].map(shellQuote).join(" ");
  const r = await execa("script", ["-qec", command, "/dev/null"], {
    env: { NO_COLOR: "1" },
    extendEnv: true,
    input: answer,
    reject: false,
    timeout: 60_000,
  });
  return { exitCode: r.exitCode, output: String(r.stdout ?? "") };
}

export const locationOf = (dataRoot: string) => ({
  tracesDir: join(dataRoot, "traces"),
  scratchpadRoot: join(dataRoot, "scratchpad"),
});

/** Forty numbered lines: long enough that the trace view folds them. */
export const LONG_OUTPUT = Array.from({ length: 40 }, (_, i) => `line-${i + 1} of the listing`).join("\n");

const counts = (total: number, output: number) => ({ cache_read: 0, cache_write: 0, output, total });

/**
 * A session with one of everything the trace view shows: user and assistant text, thinking, an
 * allowed command with a long output, a command the guardrail denied, a failed request that was
 * retried, token usage, a subagent pointer (to `childId`, when given) and the task's end.
 */
export function writeParentSession(
  dataRoot: string,
  id: string,
  opts: { date?: Date; workspace?: string; childId?: string; scratchpad?: boolean } = {},
): void {
  const date = opts.date ?? new Date("2026-11-30T10:00:00.000Z");
  const stamp = (seconds: number) => new Date(date.getTime() + seconds * 1000).toISOString();
  const writer = TraceWriter.create(locationOf(dataRoot), id, { date });
  const records: OmniMessage[] = [
    sessionMeta({
      session_id: id,
      provider: "openai",
      model_id: "gpt-test",
      system_prompt: "You are a test agent.",
      workspace: opts.workspace ?? "/tmp/penguin-ws",
      agent_id: "default",
    }),
    toolListReady([
      {
        name: "exec_command",
        description: "Run a command",
        parameters: { type: "object" },
        permission: "rw",
      },
    ]),
    userText("Tidy up the project folder"),
    requestBegin(),
    thinking("I should look at the files before removing anything."),
    assistantText("Let me look first."),
    toolCall("exec_command", { description: "List the project files", cmd: "ls -la /project" }, "call_ls"),
    approvalDecision("call_ls", "allow", { kind: "mode", name: "allow-all" }),
    toolCallOutput("call_ls", LONG_OUTPUT),
    tokenUsage(counts(1200, 40), counts(1200, 40), { request_cost_usd: 0.001, session_cost_usd: 0.001 }),
    requestEnd("completed"),
    requestBegin(),
    toolCall(
      "exec_command",
      { description: "Remove the build folder", cmd: "rm -rf /project/build" },
      "call_rm",
    ),
    approvalDecision(
      "call_rm",
      "deny",
      { kind: "guardrail", name: "recursive-delete" },
      "rm -rf outside the workspace needs a human",
    ),
    toolCallOutput(
      "call_rm",
      "Denied by the guardrail: rm -rf outside the workspace needs a human",
      "aborted",
    ),
    requestEnd("completed"),
    requestBegin(),
    requestEnd("failed", { error_message: "HTTP 503 from the provider", attempt: 1, retry_in_ms: 1500 }),
    requestBegin(2),
    assistantText("I listed the files and left the build folder alone."),
    tokenUsage(counts(900, 30), counts(2100, 70), { request_cost_usd: 0.0008, session_cost_usd: 0.0018 }),
    requestEnd("completed", { attempt: 2 }),
    taskEnd("completed"),
  ];
  if (opts.childId)
    records.splice(-1, 0, subagentPointer(opts.childId, { subagent_id: "helper", tool_call_id: "call_sub" }));
  records.forEach((record, i) => {
    writer.append({ ...record, timestamp: stamp(i) });
  });
  writer.close();
  if (opts.scratchpad) {
    const dir = join(dataRoot, "scratchpad", id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "PLAN.md"), "1. tidy up\n");
  }
}

/** A subagent's own session: one approved command, decided by a session rule. */
export function writeChildSession(dataRoot: string, id: string, parentId: string): void {
  const writer = TraceWriter.create(locationOf(dataRoot), id, { date: new Date("2026-11-30T10:00:30.000Z") });
  const records = [
    sessionMeta({
      session_id: id,
      provider: "openai",
      model_id: "gpt-test",
      system_prompt: "You are a helper.",
      workspace: "/tmp/penguin-ws",
      source: "subagent",
      parent_session_id: parentId,
    }),
    userText("Count the files", { sender: "parent_agent" }),
    requestBegin(),
    toolCall("exec_command", { description: "Count the files", cmd: "ls /project | wc -l" }, "child_call"),
    approvalDecision("child_call", "allow", { kind: "session_rule", name: "ls *" }),
    toolCallOutput("child_call", "12"),
    requestEnd("completed"),
    taskEnd("completed"),
  ];
  for (const record of records) writer.append(record);
  writer.close();
}

const SENT_AT = "2026-11-30T10:01:00.000Z";
const message = (id: string, from: string, to: string, text: string) => ({
  message_id: id,
  from,
  to,
  text,
  sent_at: SENT_AT,
});

/**
 * A tree of agents three levels deep, as launch_agent writes it: the root (`root`) launched
 * `sub_1` (the named agent `reviewer`), which launched `sub_2` (whose task never ended) and
 * `sub_3` (whose trace is missing). Messages and a question go between them.
 */
export function writeAgentTree(
  dataRoot: string,
  ids: { root: string; lead: string; worker: string; lost: string },
) {
  const write = (id: string, records: OmniMessage[], parent?: string) => {
    const writer = TraceWriter.create(locationOf(dataRoot), id, {
      date: new Date("2026-11-30T10:00:00.000Z"),
    });
    writer.append(
      sessionMeta({
        session_id: id,
        provider: "openai",
        model_id: "gpt-test",
        system_prompt: "You are a test agent.",
        workspace: "/tmp/penguin-ws",
        ...(parent ? { source: "subagent" as const, parent_session_id: parent } : {}),
      }),
    );
    for (const record of records) writer.append(record);
    writer.close();
  };
  const launch = (
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
  write(ids.root, [
    userText("Review the pull request"),
    ...launch(
      "sub_1",
      "root",
      ids.lead,
      1,
      "Lead the review of the pull request and report back",
      "reviewer",
    ),
    messageSent(message("msg_1", "root", "sub_1", "start with the tests")),
    messageDelivered(message("msg_5", "sub_1", "root", "two problems found")),
    agentFinished({ agent_run_id: "sub_1", status: "completed" }),
    assistantText("Reviewed."),
    taskEnd("completed"),
  ]);
  write(
    ids.lead,
    [
      userText("Lead the review of the pull request and report back", { sender: "parent_agent" }),
      messageDelivered(message("msg_1", "root", "sub_1", "start with the tests")),
      ...launch("sub_2", "sub_1", ids.worker, 2, "Run the test suite"),
      ...launch("sub_3", "sub_1", ids.lost, 2, "Read the docs"),
      questionAsked({ question_id: "q_1", from: "sub_1", to: "root", text: "Which branch?" }),
      messageSent(message("msg_5", "sub_1", "root", "two problems found")),
      taskEnd("completed"),
    ],
    ids.root,
  );
  write(ids.worker, [userText("Run the test suite", { sender: "parent_agent" }), requestBegin()], ids.lead);
}
