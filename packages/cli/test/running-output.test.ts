import { approvalDecision, partialToolCallOutput, toolCall, toolCallOutput } from "@penguin/protocol";
import { describe, expect, test } from "vitest";
import { Screen } from "../src/render/screen.js";
import { createStyle } from "../src/render/style.js";
import { TerminalRenderer } from "../src/render/terminal-renderer.js";
import { ESCAPE_SYMBOL, terminalSafe } from "../src/render/terminal-text.js";

// What a running call streams (an MCP server's progress lines) shows on the status line, and text
// from outside Penguin (tool output, a hook's deny reason) never writes terminal sequences.

class Sink {
  text = "";
  isTTY = false;
  write(chunk: string) {
    this.text += chunk;
    return true;
  }
}

function liveRenderer() {
  const out = new Sink();
  const err = new Sink();
  const screen = new Screen({ out: out as never, err: err as never, live: true });
  const r = new TerminalRenderer({
    out: out as never,
    err: err as never,
    style: createStyle(false),
    screen,
    now: () => 0,
  });
  return { r, out, err };
}

describe("a running call's streamed output at the terminal", () => {
  test("the status line shows the latest complete line, such as an MCP server's progress", () => {
    const { r } = liveRenderer();
    r.render(toolCall("mcp__build__compile", { target: "all" }, "c1"));
    r.render(approvalDecision("c1", "allow", { kind: "mode", name: "allow-all" }));
    expect(r.status()).toBe("mcp__build__compile · 0ms");
    r.render(partialToolCallOutput("start", "c1"));
    r.render(partialToolCallOutput("delta", "c1", "[progress 1/3] comp"));
    // A line shows once it is complete.
    expect(r.status()).toBe("mcp__build__compile · 0ms");
    r.render(partialToolCallOutput("delta", "c1", "iling core\n[progress 2/3] link"));
    expect(r.status()).toBe("mcp__build__compile · [progress 1/3] compiling core · 0ms");
    r.render(partialToolCallOutput("delta", "c1", "ing\n[progress 3/3] done\n"));
    expect(r.status()).toBe("mcp__build__compile · [progress 3/3] done · 0ms");
  });

  test("a long line is cut, and its terminal sequences are dropped", () => {
    const { r } = liveRenderer();
    r.render(toolCall("exec_command", { cmd: "make" }, "c1"));
    r.render(approvalDecision("c1", "allow", { kind: "mode", name: "allow-all" }));
    r.render(partialToolCallOutput("delta", "c1", `\u001b[32m${"x".repeat(500)}\u001b[0m\n`));
    const status = r.status() ?? "";
    expect(status).not.toContain("\u001b");
    expect(status).toMatch(/ · x{59}… · 0ms$/);
  });
});

describe("terminal sequences in text from outside Penguin", () => {
  test("are dropped from a tool's output and a hook's deny reason before they are printed", () => {
    const { r, err } = liveRenderer();
    r.render(toolCall("mcp__docs__colored", {}, "c1"));
    r.render(
      toolCallOutput("c1", "\u001b[31mred\u001b[0m \u001b]0;owned\u0007title \u001b[2Jclear \u001bc reset"),
    );
    r.render(toolCall("exec_command", { cmd: "rm -rf /" }, "c2"));
    r.render(approvalDecision("c2", "deny", { kind: "hook", name: "guard" }, "\u001b[31mno\u001b[0m"));
    const printed = err.text.replace(/\r\u001b\[2K/g, "");
    expect(printed).toContain(`│ red title clear ${ESCAPE_SYMBOL}c reset`);
    expect(printed).toContain("deny by guard: no");
    expect(printed).not.toContain("\u001b");
  });

  test("terminalSafe leaves text without ESC as it is", () => {
    const text = "plain\ttext\r\nwith � kept";
    expect(terminalSafe(text)).toBe(text);
    expect(terminalSafe("a\u001b[1;31mb\u001b[0mc")).toBe("abc");
  });
});
