import { assistantText, partialText, taskEnd, toolCall, toolCallOutput } from "@penguin/protocol";
import { describe, expect, test } from "vitest";
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
