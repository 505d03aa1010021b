import { suggestedPrefix } from "@penguin/core";
import { toolCall } from "@penguin/protocol";
import { describe, expect, test } from "vitest";
import { choicesLine, parseApprovalAnswer } from "../src/prompts/approval-prompt.js";
import { createStyle } from "../src/render/style.js";

const exec = (cmd: string) => toolCall("exec_command", { description: "d", cmd }, "c1");

describe("answers to an approval question", () => {
  test("y, n, Enter (deny) and a for the tool", () => {
    expect(parseApprovalAnswer("y", exec("ls"))).toEqual({ answer: "allow" });
    expect(parseApprovalAnswer(" YES ", exec("ls"))).toEqual({ answer: "allow" });
    expect(parseApprovalAnswer("n", exec("ls"))).toEqual({ answer: "deny" });
    expect(parseApprovalAnswer("", exec("ls"))).toEqual({ answer: "deny" });
    expect(parseApprovalAnswer("a", exec("ls"))).toEqual({
      answer: { decision: "allow", remember: { tool: "exec_command" } },
    });
  });

  test("p takes the suggested prefix, or a typed one that covers the command", () => {
    expect(parseApprovalAnswer("p", exec("git status -s"))).toEqual({
      answer: { decision: "allow", remember: { commandPrefix: "git status" } },
    });
    expect(parseApprovalAnswer("p git", exec("git status -s"))).toEqual({
      answer: { decision: "allow", remember: { commandPrefix: "git" } },
    });
  });

  test("a prefix rule never widens: not for other commands, compound commands or other tools", () => {
    expect(parseApprovalAnswer("p npm", exec("git status"))).toMatchObject({ retry: /does not cover/ });
    expect(parseApprovalAnswer("p git && rm", exec("git status"))).toMatchObject({ retry: /does not cover/ });
    expect(parseApprovalAnswer("p", exec("git status && rm -rf x"))).toMatchObject({
      retry: /several parts/,
    });
    expect(parseApprovalAnswer("p", toolCall("write_file", { file_path: "a" }, "c2"))).toMatchObject({
      retry: /exec_command only/,
    });
    expect(parseApprovalAnswer("sure", exec("ls"))).toMatchObject({ retry: /not an answer/ });
  });

  test("the suggested prefix keeps a subcommand, and nothing is offered for a compound command", () => {
    expect(suggestedPrefix("npm test -- --watch")).toBe("npm test");
    expect(suggestedPrefix("ls -la")).toBe("ls");
    expect(suggestedPrefix("sleep 5")).toBe("sleep");
    expect(suggestedPrefix("echo a > out.txt")).toBeUndefined();
    expect(suggestedPrefix("a | b")).toBeUndefined();
    expect(choicesLine(exec("ls -la"), createStyle(false))).toContain('p allow commands starting with "ls"');
    expect(choicesLine(exec("a; b"), createStyle(false))).not.toContain("p allow");
  });
});
