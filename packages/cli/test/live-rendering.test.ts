import {
  approvalDecision,
  partialToolCall,
  requestBegin,
  toolCall,
  toolCallOutput,
  toolListReady,
} from "@penguin/protocol";
import { describe, expect, test } from "vitest";
import { completedTopLevelString } from "../src/render/partial-json.js";
import { Screen } from "../src/render/screen.js";
import { createStyle } from "../src/render/style.js";
import { TerminalRenderer } from "../src/render/terminal-renderer.js";

class Sink {
  text = "";
  isTTY = false;
  write(chunk: string) {
    this.text += chunk;
    return true;
  }
}

const execSpec = {
  name: "exec_command",
  description: "Run a command",
  permission: "rw" as const,
  parameters: { type: "object", properties: { description: { type: "string" }, cmd: { type: "string" } } },
};
const readSpec = {
  name: "read_file",
  description: "Read a file",
  permission: "r" as const,
  parameters: { type: "object", properties: { file_path: { type: "string" } } },
};

describe("reading the description out of streaming arguments", () => {
  test("only once its closing quote has arrived", () => {
    const full = JSON.stringify({ description: 'Run "the" tests\n', cmd: "npm test" });
    const seen = new Set<string | undefined>();
    for (let i = 0; i <= full.length; i++) seen.add(completedTopLevelString(full.slice(0, i), "description"));
    expect([...seen]).toEqual([undefined, 'Run "the" tests\n']);
  });

  test("after other arguments, whatever their type, and never from a nested object", () => {
    expect(
      completedTopLevelString(
        '{"cmd": "ls", "n": 12, "o": {"description": "inner"}, "description": "outer"',
        "description",
      ),
    ).toBe("outer");
    expect(
      completedTopLevelString('{"x": [1, {"description": "no"}], "description": "yes"}', "description"),
    ).toBe("yes");
    expect(completedTopLevelString('{"o": {"description": "inner"', "description")).toBeUndefined();
  });

  test("nothing from what is not an object or not that key", () => {
    expect(completedTopLevelString("", "description")).toBeUndefined();
    expect(completedTopLevelString('["description", "x"]', "description")).toBeUndefined();
    expect(completedTopLevelString('{"description": 5}', "description")).toBeUndefined();
    expect(completedTopLevelString('{"cmd": "ls"}', "description")).toBeUndefined();
    expect(completedTopLevelString('{"description": "bad \\q escape"}', "description")).toBeUndefined();
  });
});

describe("the live display of running calls", () => {
  const streamCall = (r: TerminalRenderer, id: string, name: string, args: object) => {
    r.render(partialToolCall("start", id, "", name));
    const json = JSON.stringify(args);
    for (let i = 0; i < json.length; i += 5) r.render(partialToolCall("delta", id, json.slice(i, i + 5)));
    r.render(partialToolCall("stop", id, ""));
  };

  test("without a terminal the description is one plain line, before the complete call arrives", () => {
    const out = new Sink();
    const err = new Sink();
    const r = new TerminalRenderer({ out: out as never, err: err as never, style: createStyle(false) });
    r.render(toolListReady([execSpec, readSpec]));
    r.render(partialToolCall("start", "c1", "", "exec_command"));
    r.render(partialToolCall("delta", "c1", '{"description": "Build the'));
    expect(err.text).toBe("");
    r.render(partialToolCall("delta", "c1", ' app", "cmd": "make'));
    expect(err.text).toBe("● exec_command: Build the app\n");
    r.render(partialToolCall("delta", "c1", ' all"}'));
    r.render(toolCall("exec_command", { description: "Build the app", cmd: "make all" }, "c1"));
    expect(err.text).toBe("● exec_command: Build the app\n  make all\n");
  });

  test("run_command's purpose is shown like a description while its arguments stream", () => {
    const err = new Sink();
    const r = new TerminalRenderer({
      out: new Sink() as never,
      err: err as never,
      style: createStyle(false),
    });
    const runSpec = {
      name: "run_command",
      description: "Run a command as a job",
      permission: "rw" as const,
      parameters: {
        type: "object",
        properties: { purpose: { type: "string" }, command: { type: "string" } },
      },
    };
    r.render(toolListReady([runSpec]));
    streamCall(r, "c4", "run_command", { purpose: "Start the server", command: "npm start" });
    expect(err.text).toBe("● run_command: Start the server\n");
  });

  test("a tool whose schema has no description argument never shows one", () => {
    const err = new Sink();
    const r = new TerminalRenderer({
      out: new Sink() as never,
      err: err as never,
      style: createStyle(false),
    });
    r.render(toolListReady([execSpec, readSpec]));
    streamCall(r, "c2", "read_file", { file_path: "a.ts", description: "sneaky" });
    expect(err.text).toBe("");
    r.render(toolCall("read_file", { file_path: "a.ts", description: "sneaky" }, "c2"));
    expect(err.text).toContain("read_file");
  });

  test("on a terminal the status line shows the description and elapsed time, and is cleared before output", () => {
    let now = 1_000;
    const out = new Sink();
    const err = new Sink();
    const screen = new Screen({ out: out as never, err: err as never, live: true });
    const r = new TerminalRenderer({
      out: out as never,
      err: err as never,
      style: createStyle(false),
      screen,
      now: () => now,
    });
    r.render(toolListReady([execSpec]));
    r.render(requestBegin());
    expect(r.status()).toBe("waiting for the model · 0ms");
    streamCall(r, "c3", "exec_command", { description: "Run the tests", cmd: "npm test" });
    expect(r.status()).toMatch(/^Run the tests/);
    expect(err.text).toContain("Run the tests");
    r.render(toolCall("exec_command", { description: "Run the tests", cmd: "npm test" }, "c3"));
    r.render(approvalDecision("c3", "allow", { kind: "mode", name: "allow-all" }));
    now += 65_000;
    expect(r.status()).toBe("Run the tests · 1m 05s");
    const before = err.text.length;
    r.render(toolCallOutput("c3", "ok\n[exit code: 0]"));
    const after = err.text.slice(before);
    // The status line is erased before the output is written.
    expect(after.startsWith("\r\u001b[2K")).toBe(true);
    expect(after).toContain("│ ok");
    expect(after).toContain("(1m 05s)");
  });

  test("a folded output is kept whole for Ctrl-O", () => {
    const err = new Sink();
    const r = new TerminalRenderer({
      out: new Sink() as never,
      err: err as never,
      style: createStyle(false),
      expandHint: "Ctrl-O shows the whole output",
    });
    r.render(toolCall("exec_command", { description: "Count", cmd: "seq 40" }, "c4"));
    const output = Array.from({ length: 40 }, (_, i) => String(i + 1)).join("\n");
    r.render(toolCallOutput("c4", output));
    expect(err.text).toContain("(Ctrl-O shows the whole output)");
    expect(err.text).not.toContain("\n  │ 20\n");
    expect(r.lastFoldedOutput).toEqual({ title: "exec_command: Count", text: output });
  });
});
