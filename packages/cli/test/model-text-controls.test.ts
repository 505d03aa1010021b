import { toolCall } from "@penguin/protocol";
import { describe, expect, test } from "vitest";
import { describeCall } from "../src/prompts/approval-prompt.js";
import { describeQuestion } from "../src/prompts/question-prompt.js";
import { createStyle } from "../src/render/style.js";

// What the model wrote, shown in an approval question or the agent's question to the user, never
// acts on the terminal.

describe("an approval question shows what the model wrote without letting it act on the terminal", () => {
  test("control characters in a command or an edit are shown as symbols", () => {
    const exec = toolCall("exec_command", { cmd: "echo \u001b[2Jhi\r" }, "c1");
    const lines = describeCall(exec, createStyle(false)).join("\n");
    expect(lines).toContain("$ echo \u241b[2Jhi\u240d");
    expect(lines).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);

    const edit = toolCall(
      "edit_file",
      { file_path: "a", old_string: "x\u0007", new_string: "y\u009b" },
      "c2",
    );
    expect(describeCall(edit, createStyle(false))).toEqual([
      "? edit_file a",
      "  file_path: a",
      "  - x\u2407",
      "  + y<U+009B>",
    ]);
  });
});

describe("the agent's question to the user", () => {
  test("is shown without the escape sequences or control characters the model put in it", () => {
    const question = {
      id: "q_1",
      text: "Which \u001b[2Jbranch?\r\nmain\u0007 or dev",
      sessionId: "s1",
      toolCallId: "c9",
      signal: new AbortController().signal,
    };
    expect(describeQuestion(question, createStyle(false))).toEqual([
      "? the agent asks (q_1):",
      "  Which branch?",
      "  main or dev",
    ]);
  });
});
