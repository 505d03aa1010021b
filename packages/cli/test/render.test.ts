import {
  agentFinished,
  agentLaunched,
  agentStopped,
  assistantText,
  messageDelivered,
  messageSent,
  noticeDelivered,
  type OmniMessage,
  partialText,
  questionAnswered,
  questionAsked,
  taskEnd,
  toolCall,
  toolCallOutput,
  withOrigin,
} from "@penguin/protocol";
import { describe, expect, test } from "vitest";
import { AGENT_EVENT_TEXT_MAX_CHARS } from "../src/render/agent-event-line.js";
import { colourEnabled, createStyle } from "../src/render/style.js";
import { TerminalRenderer } from "../src/render/terminal-renderer.js";
import { collapseOutput, summarizeToolCall } from "../src/render/tool-call-summary.js";

class Sink {
  text = "";
  write(chunk: string) {
    this.text += chunk;
    return true;
  }
}

describe("terminal rendering", () => {
  test("a command shows its description, then the command itself", () => {
    expect(
      summarizeToolCall("exec_command", JSON.stringify({ description: "Run tests", cmd: "npm test" })),
    ).toEqual({
      title: "exec_command: Run tests",
      detail: "npm test",
    });
    expect(summarizeToolCall("read_file", JSON.stringify({ file_path: "a.ts" })).title).toBe(
      "read_file a.ts",
    );
    expect(summarizeToolCall("exec_command", "{oops").detail).toMatch(/not valid JSON/);
  });

  test("run_command shows its purpose like a description, then its command; the job tools their job", () => {
    expect(
      summarizeToolCall(
        "run_command",
        JSON.stringify({ purpose: "Start the dev server", command: "npm run dev" }),
      ),
    ).toEqual({ title: "run_command: Start the dev server", detail: "npm run dev" });
    expect(summarizeToolCall("wait_job", JSON.stringify({ job_id: "cmd_2" })).title).toBe("wait_job cmd_2");
  });

  test("long outputs keep their first and last lines and say how many were folded", () => {
    const output = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n");
    const { text, folded } = collapseOutput(output);
    expect(folded).toBe(28);
    expect(text).toContain("line 1\n");
    expect(text).toContain("… 28 more lines …");
    expect(text.endsWith("line 40")).toBe(true);
    expect(collapseOutput("a\nb\nc").folded).toBe(0);
  });

  test("assistant text goes to stdout, activity to stderr, and the complete text is not printed twice", () => {
    const out = new Sink();
    const err = new Sink();
    const r = new TerminalRenderer({ out: out as never, err: err as never, style: createStyle(false) });
    r.render(partialText("start"));
    r.render(partialText("delta", "Hello "));
    r.render(partialText("delta", "world"));
    r.render(partialText("stop"));
    r.render(assistantText("Hello world"));
    r.render(toolCall("exec_command", { description: "List files", cmd: "ls" }, "c1"));
    r.render(toolCallOutput("c1", "a.txt\nb.txt\n[exit code: 0]"));
    r.render(taskEnd("completed"));
    r.finish("/data/traces/x.jsonl");
    expect(out.text).toBe("Hello world\n");
    expect(err.text).toContain("● exec_command: List files");
    expect(err.text).toContain("  │ a.txt");
    expect(err.text).toContain("trace: /data/traces/x.jsonl");
    expect(r.summary.status).toBe("completed");
  });

  test("colour only on a terminal and never with NO_COLOR", () => {
    expect(colourEnabled({ isTTY: true }, {})).toBe(true);
    expect(colourEnabled({ isTTY: false }, {})).toBe(false);
    expect(colourEnabled({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    expect(createStyle(true).red("x")).toBe("\u001b[31mx\u001b[39m");
  });
});

describe("lines of agents that work together", () => {
  const at = "2026-12-02T10:00:00.000Z";
  const renderAll = (messages: OmniMessage[], style = createStyle(false)) => {
    const out = new Sink();
    const err = new Sink();
    const r = new TerminalRenderer({ out: out as never, err: err as never, style });
    for (const m of messages) r.render(m);
    return { out: out.text, err: err.text };
  };

  test("a launch, messages, a question and its answer, a notice, an end and a stop: one short line each", () => {
    const longTask = `Review every file of the pull request ${"carefully ".repeat(20)}`;
    const { out, err } = renderAll([
      agentLaunched({
        agent_run_id: "sub_2",
        parent: "root",
        session_id: "s2",
        depth: 1,
        agent: "reviewer",
        task: longTask,
      }),
      agentLaunched({
        agent_run_id: "sub_3",
        parent: "root",
        session_id: "s3",
        depth: 1,
        task: "Run\nthe tests",
      }),
      messageSent({ message_id: "msg_1", from: "root", to: "sub_2", text: "start with src/", sent_at: at }),
      questionAsked({ question_id: "q_1", from: "sub_2", to: "root", text: "Which branch?" }),
      questionAnswered({ question_id: "q_1", from: "root", text: "main" }),
      noticeDelivered({
        notice_id: "n_1",
        notice_type: "deploy.done",
        handler: "deploy",
        delivery: "queue",
        summary: "Deploy finished",
        dropped_before: 2,
      }),
      agentFinished({ agent_run_id: "sub_2", status: "completed" }),
      agentFinished({ agent_run_id: "sub_3", status: "failed", message: "the model refused" }),
      agentStopped({ agent_run_id: "sub_4", stopped: ["sub_4", "sub_5"], processes_ended: 1 }),
    ]);
    expect(out).toBe("");
    const lines = err.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      /^ {2}→ sub_2 launched \(reviewer\): Review every file of the pull request carefully/,
    );
    expect(lines[0]!.endsWith("…")).toBe(true);
    expect(lines[0]!.length).toBeLessThan(AGENT_EVENT_TEXT_MAX_CHARS + 40);
    expect(lines.slice(1)).toEqual([
      "  → sub_3 launched: Run the tests",
      "  ✉ root → sub_2: start with src/",
      "  ? sub_2 asks root [q_1]: Which branch?",
      "  ! root answered [q_1]: main",
      "  ◆ notice deploy.done (queue, handler deploy, 2 older dropped): Deploy finished",
      "  ← sub_2 completed",
      "  ← sub_3 failed: the model refused",
      "  ■ sub_4 stopped and sub_5; 1 process ended",
    ]);
  });

  test("a message shows once: its delivery prints a line only when its send was not shown", () => {
    const sent = { message_id: "msg_4", from: "sub_1", to: "root", text: "done here", sent_at: at };
    const relayed = withOrigin(messageSent(sent), "child-session");
    const both = renderAll([relayed, messageDelivered(sent)]);
    expect(both.err).toBe("  ✉ sub_1 → root: done here\n");
    const onlyDelivered = renderAll([messageDelivered({ ...sent, message_id: "msg_5" })]);
    expect(onlyDelivered.err).toBe("  ✉ sub_1 → root: done here\n");
  });

  test("text from a model cannot move the cursor or recolour the terminal; colour only when styled", () => {
    const plain = renderAll([
      messageSent({
        message_id: "msg_1",
        from: "root",
        to: "sub_1",
        text: "\u001b[2Jhi\u001b[31m",
        sent_at: at,
      }),
    ]);
    expect(plain.err).toBe("  ✉ root → sub_1: hi\n");
    const coloured = renderAll(
      [agentLaunched({ agent_run_id: "sub_1", parent: "root", session_id: "s1", depth: 1, task: "go" })],
      createStyle(true),
    );
    expect(coloured.err).toContain("\u001b[36m→\u001b[39m");
  });
});
